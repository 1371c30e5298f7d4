import type { jobsAdminV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import { readQueueStats } from '../../db/queue-stats-sql.js';
import type { JobsContext } from '../../jobs-context.js';
import { queueMessage } from '../job-mapper.js';

type GetQueueStats = Handler<typeof jobsAdminV1.JobsAdminServiceService.getQueueStats>;

/** Queue depth per queue, outbox backlog and expired leases, for dashboards and the operator CLI. */
export function getQueueStats({ pool }: JobsContext): GetQueueStats {
  return async () => {
    const stats = await readQueueStats(pool);
    return { ...stats, queues: stats.queues.map((depth) => ({ ...depth, queue: queueMessage(depth.queue) })) };
  };
}
