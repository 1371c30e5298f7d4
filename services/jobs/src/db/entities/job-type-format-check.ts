/**
 * JOB_TYPE_PATTERN (`^[a-z][a-z0-9_.]{1,63}$`, libs/job-types) as a CHECK without a regular
 * expression, which Postgres runs three times slower: 2 to 64 characters, the first a lower-case
 * letter, every one a lower-case letter, a digit, `_` or `.` (migration 0021).
 */
export const JOB_TYPE_FORMAT_CHECK = `char_length(job_type) >= 2 AND char_length(job_type) <= 64
  AND strpos('abcdefghijklmnopqrstuvwxyz', left(job_type, 1)) > 0
  AND ltrim(job_type, 'abcdefghijklmnopqrstuvwxyz0123456789_.') = ''`;
