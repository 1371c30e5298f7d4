import type { jobsAdminV1 } from '@atelier/contracts';
import { NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireUuid } from '@atelier/validation';
import { selectJob, selectJobEvents } from '../../db/job-sql.js';
import { jobAttempts } from '../../domain/job-attempts.js';
import type { JobsContext } from '../../jobs-context.js';
import { toAdminJobMessage, toJobAttemptMessage, toJobEventMessage } from '../job-mapper.js';

type GetJobDetails = Handler<typeof jobsAdminV1.JobsAdminServiceService.getJobDetails>;

/** A job with its operator-only fields, every transition it went through and each attempt's timings. */
export function getJobDetails({ pool }: JobsContext): GetJobDetails {
  return async (request) => {
    const row = await selectJob(pool, requireUuid(request.jobId, 'job_id'));
    if (!row) throw new NotFoundError('job');
    const events = await selectJobEvents(pool, [row.id]);
    const attempts = jobAttempts(
      events.map((event) => ({
        fromStatus: event.from_status,
        toStatus: event.to_status,
        attempt: event.attempt,
        errorCode: event.error_code,
        occurredAt: event.occurred_at,
        actor: event.actor,
        errorClass: event.error_class,
        detail: event.detail,
      })),
      new Date(),
    );
    return {
      job: toAdminJobMessage(row, events),
      events: events.map(toJobEventMessage),
      attempts: attempts.map(toJobAttemptMessage),
    };
  };
}
