import { Counter, type Registry } from '@atelier/metrics';

/** The key POSTs without an Idempotency-Key are counted under. */
export const NO_IDEMPOTENCY_KEY = '(none)';

export interface KeyCounts {
  /** Predictions created (charged) for the key: more than one means a double charge. */
  submissions: number;
  /** POSTs carrying the key: replays and refused ones included. */
  requests: number;
}

/** The double-charge meter behind `GET /v1/stats`: what each Idempotency-Key cost. */
export class SubmissionMeter {
  private readonly counts = new Map<string, KeyCounts>();
  private readonly requests: Counter | undefined;
  private readonly submissions: Counter | undefined;

  /** With a registry, the totals are also Prometheus counters (per-key counts stay on /v1/stats). */
  constructor(registry?: Registry) {
    if (!registry) return;
    this.requests = new Counter({
      name: 'atelier_provider_sim_prediction_requests_total',
      help: 'POST /v1/predictions requests, replays and refusals included',
      registers: [registry],
    });
    this.submissions = new Counter({
      name: 'atelier_provider_sim_predictions_created_total',
      help: 'Predictions created, i.e. charged',
      registers: [registry],
    });
  }

  countRequest(key: string | null): void {
    this.entry(key).requests += 1;
    this.requests?.inc();
  }

  countSubmission(key: string | null): void {
    this.entry(key).submissions += 1;
    this.submissions?.inc();
  }

  byKey(): Record<string, KeyCounts> {
    return Object.fromEntries([...this.counts].map(([key, counts]) => [key, { ...counts }]));
  }

  private entry(key: string | null): KeyCounts {
    const name = key ?? NO_IDEMPOTENCY_KEY;
    let counts = this.counts.get(name);
    if (!counts) {
      counts = { submissions: 0, requests: 0 };
      this.counts.set(name, counts);
    }
    return counts;
  }
}
