import { lockAllForTransaction, type Queryable } from '@atelier/db';
import type { SealedSecret } from '../domain/credential-envelope.js';

/** The statements of jobs.provider_credentials (migration 0017, docs/credentials.md). */

/** A credential as its owner sees it: never the sealed key. */
export interface CredentialRow {
  id: string;
  user_id: string;
  provider_code: string;
  label: string;
  key_hint: string;
  created_at: Date;
  last_refused_at: Date | null;
  deleted_at: Date | null;
}

const SHOWN = `id, user_id, provider_code, label, key_hint, created_at, last_refused_at, deleted_at`;
const SEALED = `kek_id AS "kekId", wrapped_key AS "wrappedKey", wrap_nonce AS "wrapNonce", wrap_tag AS "wrapTag",
                ciphertext, nonce, tag`;

/**
 * Inserts a credential unless its user already has `maxPerUser` (not deleted), inside the
 * caller's transaction: the user's lock makes two concurrent creates count each other. Answers
 * the row, or null when the limit refused it.
 */
export async function insertCredentialWithinLimit(
  db: Queryable,
  row: { id: string; userId: string; providerCode: string; label: string; keyHint: string; sealed: SealedSecret },
  maxPerUser: number,
): Promise<CredentialRow | null> {
  await lockAllForTransaction(db, 'jobs.provider_credentials', [row.userId]);
  const { sealed } = row;
  const { rows } = await db.query<CredentialRow>({
    name: 'jobs.insert_provider_credential',
    text: `INSERT INTO jobs.provider_credentials
             (id, user_id, provider_code, label, key_hint, kek_id, wrapped_key, wrap_nonce, wrap_tag, ciphertext, nonce, tag)
           SELECT $1::uuid, $2::text, $3::text, $4::text, $5::text, $6::text, $7::bytea, $8::bytea, $9::bytea, $10::bytea, $11::bytea, $12::bytea
            WHERE (SELECT count(*) FROM jobs.provider_credentials WHERE user_id = $2::text AND deleted_at IS NULL) < $13::int
           RETURNING ${SHOWN}`,
    values: [
      row.id,
      row.userId,
      row.providerCode,
      row.label,
      row.keyHint,
      sealed.kekId,
      sealed.wrappedKey,
      sealed.wrapNonce,
      sealed.wrapTag,
      sealed.ciphertext,
      sealed.nonce,
      sealed.tag,
      maxPerUser,
    ],
  });
  return rows[0] ?? null;
}

/** A user's credentials that are not deleted, newest first. */
export async function selectCredentialsOfUser(db: Queryable, userId: string): Promise<CredentialRow[]> {
  const { rows } = await db.query<CredentialRow>({
    name: 'jobs.select_provider_credentials_of_user',
    text: `SELECT ${SHOWN} FROM jobs.provider_credentials WHERE user_id = $1 AND deleted_at IS NULL ORDER BY created_at DESC, id DESC`,
    values: [userId],
  });
  return rows;
}

/** One credential by id, deleted or not (CreateJob checks its owner, provider and state). */
export async function selectCredential(db: Queryable, id: string): Promise<CredentialRow | null> {
  const { rows } = await db.query<CredentialRow>({
    name: 'jobs.select_provider_credential',
    text: `SELECT ${SHOWN} FROM jobs.provider_credentials WHERE id = $1`,
    values: [id],
  });
  return rows[0] ?? null;
}

/**
 * Deletes a user's credential: the row stays (jobs name it), its sealed key is destroyed. False
 * when it is not theirs or already deleted.
 */
export async function deleteCredential(db: Queryable, userId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query({
    name: 'jobs.delete_provider_credential',
    text: `UPDATE jobs.provider_credentials
              SET deleted_at = now(), kek_id = NULL, wrapped_key = NULL, wrap_nonce = NULL, wrap_tag = NULL,
                  ciphertext = NULL, nonce = NULL, tag = NULL
            WHERE id = $1 AND user_id = $2 AND deleted_at IS NULL`,
    values: [id, userId],
  });
  return (rowCount ?? 0) > 0;
}

/** Every credential of a deleted account (the account deletion's last step). */
export async function deleteCredentialsOfUser(db: Queryable, userId: string): Promise<void> {
  await db.query({
    name: 'jobs.delete_provider_credentials_of_user',
    text: `DELETE FROM jobs.provider_credentials WHERE user_id = $1`,
    values: [userId],
  });
}

/** A job as GetJobCredential judges it, with its credential (sealed) when it has one. */
export interface JobCredentialRow {
  job_id: string;
  user_id: string;
  status: string;
  lease_owner: string | null;
  lease_live: boolean;
  provider_request_id: string | null;
  /** The job ended (completed_at) less than a day ago. */
  ended_recently: boolean;
  credential_mode: 'platform_key' | 'user_key';
  credential: (CredentialRow & { sealed: SealedSecret | null }) | null;
}

export async function selectJobCredential(db: Queryable, jobId: string): Promise<JobCredentialRow | null> {
  const { rows } = await db.query<
    Omit<JobCredentialRow, 'credential'> & {
      c_id: string | null;
      c_user_id: string;
      provider_code: string;
      label: string;
      key_hint: string;
      created_at: Date;
      last_refused_at: Date | null;
      deleted_at: Date | null;
    } & Partial<SealedSecret>
  >({
    name: 'jobs.select_job_credential',
    text: `SELECT j.id AS job_id, j.user_id, j.status, j.lease_owner, (j.lease_expires_at > now()) IS TRUE AS lease_live,
                  j.provider_request_id, (j.completed_at > now() - interval '1 day') IS TRUE AS ended_recently,
                  j.credential_mode, c.id AS c_id, c.user_id AS c_user_id, c.provider_code, c.label, c.key_hint,
                  c.created_at, c.last_refused_at, c.deleted_at,
                  c.kek_id AS "kekId", c.wrapped_key AS "wrappedKey", c.wrap_nonce AS "wrapNonce", c.wrap_tag AS "wrapTag",
                  c.ciphertext, c.nonce, c.tag
             FROM jobs.generation_jobs j LEFT JOIN jobs.provider_credentials c ON c.id = j.credential_id
            WHERE j.id = $1`,
    values: [jobId],
  });
  const row = rows[0];
  if (!row) return null;
  const sealed: SealedSecret | null = row.ciphertext
    ? {
        kekId: row.kekId!,
        wrappedKey: row.wrappedKey!,
        wrapNonce: row.wrapNonce!,
        wrapTag: row.wrapTag!,
        ciphertext: row.ciphertext,
        nonce: row.nonce!,
        tag: row.tag!,
      }
    : null;
  return {
    job_id: row.job_id,
    user_id: row.user_id,
    status: row.status,
    lease_owner: row.lease_owner,
    lease_live: row.lease_live,
    provider_request_id: row.provider_request_id,
    ended_recently: row.ended_recently,
    credential_mode: row.credential_mode,
    credential: row.c_id
      ? {
          id: row.c_id,
          user_id: row.c_user_id,
          provider_code: row.provider_code,
          label: row.label,
          key_hint: row.key_hint,
          created_at: row.created_at,
          last_refused_at: row.last_refused_at,
          deleted_at: row.deleted_at,
          sealed,
        }
      : null,
  };
}

/** The vendor refused the key of the job this worker runs: noted on the credential. False without the lease. */
export async function markJobCredentialRefused(db: Queryable, jobId: string, workerId: string): Promise<boolean> {
  const { rowCount } = await db.query({
    name: 'jobs.mark_provider_credential_refused',
    text: `UPDATE jobs.provider_credentials c SET last_refused_at = now()
             FROM jobs.generation_jobs j
            WHERE j.id = $1 AND j.status = 'running' AND j.lease_owner = $2 AND c.id = j.credential_id`,
    values: [jobId, workerId],
  });
  return (rowCount ?? 0) > 0;
}

/** Credentials still sealed under another KEK than `currentKekId`, locked for the rewrap (skipping rows another rewrap holds). */
export async function selectCredentialsToRewrap(
  db: Queryable,
  currentKekId: string,
  limit: number,
): Promise<{ id: string; user_id: string; provider_code: string; sealed: SealedSecret }[]> {
  const { rows } = await db.query<{ id: string; user_id: string; provider_code: string } & SealedSecret>({
    name: 'jobs.select_provider_credentials_to_rewrap',
    text: `SELECT id, user_id, provider_code, ${SEALED} FROM jobs.provider_credentials
            WHERE kek_id IS NOT NULL AND kek_id <> $1
            ORDER BY kek_id, id LIMIT $2 FOR UPDATE SKIP LOCKED`,
    values: [currentKekId, limit],
  });
  return rows.map(({ id, user_id, provider_code, ...sealed }) => ({ id, user_id, provider_code, sealed }));
}

/** Stores rewrapped data keys (the ciphertext does not change). */
export async function updateWrappedKeys(db: Queryable, rows: readonly { id: string; sealed: SealedSecret }[]): Promise<void> {
  if (rows.length === 0) return;
  await db.query({
    name: 'jobs.update_provider_credentials_wrapped_keys',
    text: `UPDATE jobs.provider_credentials c
              SET kek_id = u.kek_id, wrapped_key = u.wrapped_key, wrap_nonce = u.wrap_nonce, wrap_tag = u.wrap_tag
             FROM unnest($1::uuid[], $2::text[], $3::bytea[], $4::bytea[], $5::bytea[]) AS u(id, kek_id, wrapped_key, wrap_nonce, wrap_tag)
            WHERE c.id = u.id AND c.deleted_at IS NULL`,
    values: [
      rows.map((row) => row.id),
      rows.map((row) => row.sealed.kekId),
      rows.map((row) => row.sealed.wrappedKey),
      rows.map((row) => row.sealed.wrapNonce),
      rows.map((row) => row.sealed.wrapTag),
    ],
  });
}

/** Credentials still sealed under another KEK than the current one. */
export async function countCredentialsToRewrap(db: Queryable, currentKekId: string): Promise<number> {
  const { rows } = await db.query<{ remaining: string }>({
    name: 'jobs.count_provider_credentials_to_rewrap',
    text: `SELECT count(*) AS remaining FROM jobs.provider_credentials WHERE kek_id IS NOT NULL AND kek_id <> $1`,
    values: [currentKekId],
  });
  return Number(rows[0]!.remaining);
}
