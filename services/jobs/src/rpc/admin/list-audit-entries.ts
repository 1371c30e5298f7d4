import type { jobsAdminV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import { listAuditEntries } from '@atelier/operator-audit';
import type { JobsContext } from '../../jobs-context.js';

type ListAuditEntries = Handler<typeof jobsAdminV1.JobsAdminServiceService.listAuditEntries>;

/** jobs.operator_audit, newest first (the console's audit page merges it with the catalog's). */
export function listJobsAuditEntries({ pool }: JobsContext): ListAuditEntries {
  return async (request) => listAuditEntries(pool, 'jobs', 'jobs', request.query);
}
