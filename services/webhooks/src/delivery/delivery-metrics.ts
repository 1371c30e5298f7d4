import { Counter, Histogram, type Registry } from '@atelier/metrics';

/** What one attempt ended as: delivered (2xx), to be retried, or the last of its schedule. */
export type AttemptOutcomeLabel = 'delivered' | 'retry' | 'failed';

/** The sender's series: attempts by outcome and their durations (docs/webhooks.md, docs/operations.md). */
export class DeliveryMetrics {
  readonly attempts: Counter<'outcome'>;
  readonly duration: Histogram<'outcome'>;

  constructor(registry: Registry) {
    this.attempts = new Counter({
      name: 'atelier_webhook_attempts_total',
      help: 'Webhook POSTs, by outcome (delivered, retry, failed)',
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'atelier_webhook_attempt_duration_seconds',
      help: 'Time from the start of a webhook POST to its answer or its failure',
      labelNames: ['outcome'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
  }

  observe(outcome: AttemptOutcomeLabel, durationMs: number): void {
    this.attempts.inc({ outcome });
    this.duration.observe({ outcome }, durationMs / 1000);
  }
}
