import { JOB_STATUS_WORDS, enumWords, jobsExecutionV1, jobsV1, type jobsAdminV1 } from '@atelier/contracts';
import { formatAge, oneLine, table } from './text-format.js';

/** One job's story (GetJobDetails) for a terminal and for scripts. Pure. */

const ERROR_CLASS_WORDS = enumWords(jobsExecutionV1.ErrorClass);
const QUEUE_WORDS = enumWords(jobsV1.JobQueue);

function statusWord(status: jobsV1.JobStatus): string {
  return JOB_STATUS_WORDS.wordOf(status) ?? 'unspecified';
}

function errorClassWord(errorClass: jobsExecutionV1.ErrorClass | undefined): string | null {
  return errorClass === undefined ? null : (ERROR_CLASS_WORDS.wordOf(errorClass) ?? null);
}

/** A timeline reads in milliseconds: a claim often follows its creation within one second. */
function instant(date: Date | undefined): string {
  return date ? date.toISOString() : '-';
}

/** formatAge's `-` means "none"; a measured wait of 0 ms is still a wait. */
function duration(ms: number): string {
  return ms <= 0 ? '0ms' : formatAge(ms);
}

/** `PROVIDER_UNAVAILABLE (provider): the detail`, or `-`. */
function errorCell(code: string | undefined, errorClass: jobsExecutionV1.ErrorClass | undefined, detail: string | undefined): string {
  const word = errorClassWord(errorClass);
  const head = [code, word ? `(${word})` : undefined].filter(Boolean).join(' ');
  const text = [head, detail].filter(Boolean).join(': ');
  return text === '' ? '-' : oneLine(text, 100);
}

function transition(from: jobsV1.JobStatus, to: jobsV1.JobStatus): string {
  return from === jobsV1.JobStatus.UNSPECIFIED ? `created → ${statusWord(to)}` : `${statusWord(from)} → ${statusWord(to)}`;
}

function headerLines(admin: jobsAdminV1.AdminJob): string[] {
  const job = admin.job;
  if (!job) return ['Job (no job in the answer)'];
  const queue = QUEUE_WORDS.wordOf(job.queue) ?? 'unspecified';
  const lines = [
    `Job ${job.id} (${job.jobType}, ${queue} queue): ${statusWord(job.status)}, attempt ${job.attemptCount} of ${job.maxAttempts}`,
    `  user ${job.userId}; created ${instant(job.createdAt)}; updated ${instant(job.updatedAt)}`,
  ];
  if (job.errorCode || job.errorMessage) lines.push(`  error: ${[job.errorCode, job.errorMessage].filter(Boolean).join(': ')}`);
  if (admin.internalErrorMessage) lines.push(`  internal error: ${admin.internalErrorMessage}`);
  if (admin.providerRequestId || admin.abandonedProviderRequests > 0) {
    const abandoned = admin.abandonedProviderRequests > 0 ? ` (${admin.abandonedProviderRequests} abandoned before it)` : '';
    lines.push(`  provider request: ${admin.providerRequestId ?? '-'}${abandoned}`);
  }
  if (admin.leaseOwner) lines.push(`  lease: ${admin.leaseOwner} until ${instant(admin.leaseExpiresAt)}`);
  if (job.cancelRequestedAt) lines.push(`  cancel requested: ${instant(job.cancelRequestedAt)}`);
  if (job.retryOfJobId) lines.push(`  retry of: ${job.retryOfJobId}`);
  return lines;
}

/** The job, then one line per event (oldest first), then one per attempt. */
export function formatJobTimeline(details: jobsAdminV1.GetJobDetailsResponse): string {
  const lines = headerLines(details.job ?? { job: undefined, abandonedProviderRequests: 0 });
  lines.push('', 'Events');
  lines.push(
    ...table(
      ['TIME', 'TRANSITION', 'ATTEMPT', 'ACTOR', 'ERROR / DETAIL'],
      details.events.map((e) => [
        instant(e.occurredAt),
        transition(e.fromStatus, e.toStatus),
        e.attempt > 0 ? String(e.attempt) : '-',
        e.actor,
        errorCell(e.errorCode, e.errorClass, e.detail),
      ]),
    ),
  );
  lines.push('', 'Attempts');
  if (details.attempts.length === 0) lines.push('  none: the job was never claimed');
  else
    lines.push(
      ...table(
        ['ATTEMPT', 'QUEUED', 'WAITED', 'RAN', 'OUTCOME', 'CLAIMED BY', 'ENDED BY', 'ERROR'],
        details.attempts.map((a) => [
          String(a.attempt),
          instant(a.queuedAt),
          duration(a.queuedWaitMs),
          a.endedAt ? duration(a.runMs) : `${duration(a.runMs)} so far`,
          statusWord(a.outcome),
          a.claimedBy,
          a.endedBy ?? '-',
          errorCell(a.errorCode, a.errorClass, a.errorDetail),
        ]),
      ),
    );
  return `${lines.join('\n')}\n`;
}

/** `{ job, events, attempts }`: fields as the admin API names them, enums as words, times in ISO 8601, absent values null. */
export function formatJobJson(details: jobsAdminV1.GetJobDetailsResponse): string {
  const admin = details.job;
  const job = admin?.job;
  const document = {
    job: job
      ? {
          id: job.id,
          userId: job.userId,
          jobType: job.jobType,
          queue: QUEUE_WORDS.wordOf(job.queue) ?? 'unspecified',
          status: statusWord(job.status),
          attemptCount: job.attemptCount,
          maxAttempts: job.maxAttempts,
          errorCode: job.errorCode ?? null,
          errorMessage: job.errorMessage ?? null,
          internalErrorMessage: admin.internalErrorMessage ?? null,
          providerRequestId: admin.providerRequestId ?? null,
          abandonedProviderRequests: admin.abandonedProviderRequests,
          leaseOwner: admin.leaseOwner ?? null,
          leaseExpiresAt: admin.leaseExpiresAt?.toISOString() ?? null,
          retryOfJobId: job.retryOfJobId ?? null,
          createdAt: job.createdAt?.toISOString() ?? null,
          updatedAt: job.updatedAt?.toISOString() ?? null,
          startedAt: job.startedAt?.toISOString() ?? null,
          completedAt: job.completedAt?.toISOString() ?? null,
          cancelRequestedAt: job.cancelRequestedAt?.toISOString() ?? null,
        }
      : null,
    events: details.events.map((e) => ({
      id: e.id,
      fromStatus: e.fromStatus === jobsV1.JobStatus.UNSPECIFIED ? null : statusWord(e.fromStatus),
      toStatus: statusWord(e.toStatus),
      attempt: e.attempt,
      actor: e.actor,
      errorCode: e.errorCode ?? null,
      errorClass: errorClassWord(e.errorClass),
      detail: e.detail ?? null,
      occurredAt: e.occurredAt?.toISOString() ?? null,
    })),
    attempts: details.attempts.map((a) => ({
      attempt: a.attempt,
      queuedAt: a.queuedAt?.toISOString() ?? null,
      startedAt: a.startedAt?.toISOString() ?? null,
      endedAt: a.endedAt?.toISOString() ?? null,
      queuedWaitMs: a.queuedWaitMs,
      runMs: a.runMs,
      outcome: statusWord(a.outcome),
      claimedBy: a.claimedBy,
      endedBy: a.endedBy ?? null,
      errorCode: a.errorCode ?? null,
      errorClass: errorClassWord(a.errorClass),
      errorDetail: a.errorDetail ?? null,
    })),
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** The job's new status after an operator's cancel. */
export function cancelledLine(admin: jobsAdminV1.AdminJob | undefined, jobId: string): string {
  const job = admin?.job;
  return `cancelled job ${jobId}${job ? ` (${job.jobType})` : ''}: its status is now ${job ? statusWord(job.status) : 'unknown'}\n`;
}
