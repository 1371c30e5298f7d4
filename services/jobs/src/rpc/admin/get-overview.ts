import type { jobsAdminV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import { readOverview } from '../../db/overview-sql.js';
import { overviewBuckets } from '../../domain/overview-window.js';
import type { JobsContext } from '../../jobs-context.js';
import { toGetOverviewResponse } from '../overview-mapper.js';

type GetOverview = Handler<typeof jobsAdminV1.JobsAdminServiceService.getOverview>;

/** Throughput, latencies, queues, outbox and live workers over the last 1–24 h, and the users the quota refused, for the console. */
export function getOverview({ pool, leaseTtlMs }: JobsContext): GetOverview {
  return async (request) => {
    const buckets = overviewBuckets(request.windowMinutes);
    return toGetOverviewResponse(await readOverview(pool, buckets, leaseTtlMs), buckets.bucketMinutes);
  };
}
