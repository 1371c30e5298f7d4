import { Counter, type Registry } from '@atelier/metrics';
import { RETENTION_TABLES } from './retention-pruner.js';

/** atelier_jobs_retention_pruned_total{table}: rows retention deleted on this replica (sum the replicas). */
export function retentionPrunedCounter(registry: Registry): Counter<'table'> {
  const counter = new Counter({
    name: 'atelier_jobs_retention_pruned_total',
    help: 'Rows the retention pruner deleted: published outbox rows (table="outbox"), events of long-ended jobs (table="job_events"), quota refusals of ended periods (table="quota_hits"), jobs whose prompts and effective inputs were redacted (table="redacted_jobs"), input images media deleted (table="input_images")',
    labelNames: ['table'] as const,
    registers: [registry],
  });
  // Every series exists from the start, so a rate() over them is 0 rather than absent.
  for (const table of RETENTION_TABLES) counter.inc({ table }, 0);
  return counter;
}
