import type { jobsAdminV1 } from '@atelier/contracts';
import { NotFoundError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireUuid } from '@atelier/validation';
import { selectJob, selectJobEvents } from '../../db/job-sql.js';
import type { JobsContext } from '../../jobs-context.js';
import { toAdminJobMessage, toJobEventMessage } from '../job-mapper.js';

type GetJobDetails = Handler<typeof jobsAdminV1.JobsAdminServiceService.getJobDetails>;

/** A job with its operator-only fields and every transition it went through. */
export function getJobDetails({ pool }: JobsContext): GetJobDetails {
  return async (request) => {
    const row = await selectJob(pool, requireUuid(request.jobId, 'job_id'));
    if (!row) throw new NotFoundError('job');
    const events = await selectJobEvents(pool, [row.id]);
    return { job: toAdminJobMessage(row, events), events: events.map(toJobEventMessage) };
  };
}
