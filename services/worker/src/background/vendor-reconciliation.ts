import { jobsReconciliationV1 } from '@atelier/contracts';
import type { PromiseClient } from '@atelier/grpc';
import { startPeriodicTask, type PeriodicTask } from '@atelier/lifecycle';
import type { Logger } from '@atelier/logging';
import type { ListedPrediction } from '../peers/provider/prediction-list.js';

/** Windows one turn may reconcile back to back (a worker that was away catches up this fast). */
const MAX_WINDOWS_PER_TURN = 24;

export interface VendorReconciliationOptions {
  reconciliation: PromiseClient<jobsReconciliationV1.ProviderReconciliationServiceClient>;
  /** The provider codes to reconcile, each with its list of the platform account's predictions. */
  vendors: ReadonlyMap<string, (window: { from: Date; until: Date }, signal: AbortSignal) => AsyncIterable<ListedPrediction[]>>;
  workerId: string;
  intervalMs: number;
  logger: Logger;
}

/**
 * Reconciliation with the vendor, the worker's part: every intervalMs, for each provider, jobs
 * leases this worker the next settled window (BeginReconciliation; another pod's run or nothing
 * settled yet: nothing to do), the worker lists the vendor's predictions of the platform account
 * for it with the platform key, hands them over page by page (SubmitVendorPredictions) and
 * finishes the run (FinishReconciliation), where jobs matches them and records the findings. A
 * failure gives the run up: its lease expires and the window is offered again.
 */
export function startVendorReconciliation(options: VendorReconciliationOptions): PeriodicTask {
  const { reconciliation, workerId, logger } = options;
  const reconcileWindow = async (providerCode: string, signal: AbortSignal): Promise<boolean> => {
    const begun = await reconciliation.beginReconciliation({ providerCode, workerId });
    if (begun.outcome !== jobsReconciliationV1.BeginReconciliationOutcome.STARTED || !begun.run) return false;
    const { runId, listFrom, windowEnd } = begun.run;
    const list = options.vendors.get(providerCode)!;
    for await (const page of list({ from: listFrom!, until: windowEnd! }, signal)) {
      await reconciliation.submitVendorPredictions({ runId, workerId, predictions: page });
    }
    const finished = await reconciliation.finishReconciliation({ runId, workerId });
    const findings = finished.newFindings.reduce((total, count) => total + count.count, 0);
    logger.info({ providerCode, runId, predictionsSeen: finished.predictionsSeen, newFindings: findings }, 'vendor reconciled');
    return true;
  };
  return startPeriodicTask({
    name: 'vendor reconciliation',
    intervalMs: options.intervalMs,
    logger,
    async run(signal) {
      for (const providerCode of options.vendors.keys()) {
        for (let i = 0; i < MAX_WINDOWS_PER_TURN && !signal.aborted; i += 1) {
          if (!(await reconcileWindow(providerCode, signal))) break;
        }
      }
    },
  });
}
