import type { jobsExecutionV1 } from '@atelier/contracts';
import { InvalidArgumentError } from '@atelier/errors';
import type { Handler } from '@atelier/grpc';
import { requireIntInRange } from '@atelier/validation';
import type { WaitingWorkers } from '../announce/waiting-workers.js';
import { requireWorkerId } from './worker-id.js';

type AwaitJobs = Handler<typeof jobsExecutionV1.JobExecutionServiceService.awaitJobs>;

/** The most jobs of one queue a waiting worker may ask for (ClaimJobs' batch limit). */
const MAX_SLOTS = 500;
/** The longest wait: a long poll, well inside the connections' keepalive and maximum age. */
export const MAX_AWAIT_MS = 30_000;

/**
 * A worker with free slots waits for jobs created or queued again at this replica: they are
 * claimed for it and answered here, instead of their dispatch going through NATS
 * (background/dispatch-hand-off.ts). Answers empty when none came within wait_ms, or at once when
 * this replica is stopping.
 */
export function awaitJobs(waiting: WaitingWorkers<jobsExecutionV1.HandedOverJob>): AwaitJobs {
  return async (request, call) => {
    const workerId = requireWorkerId(request.workerId);
    const slots = {
      interactive: requireIntInRange(request.interactiveSlots, 'interactive_slots', 0, MAX_SLOTS),
      background: requireIntInRange(request.backgroundSlots, 'background_slots', 0, MAX_SLOTS),
    };
    if (slots.interactive + slots.background === 0) {
      throw new InvalidArgumentError('interactive_slots', 'a worker waits for jobs with at least one free slot');
    }
    const waitMs = requireIntInRange(request.waitMs, 'wait_ms', 1, MAX_AWAIT_MS);
    return { jobs: await waiting.wait(workerId, slots, waitMs, call.signal) };
  };
}
