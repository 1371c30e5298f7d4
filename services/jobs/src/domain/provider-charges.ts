/**
 * What a job has cost at the vendor. Every provider request the job gave up (the vendor failed,
 * cancelled or lost it, or its output was unusable) raised provider_request_generation by one;
 * the request recorded now, if any, is the one being followed. Nothing else creates a charge:
 * a timeout, a lost lease, a crash or a transient vendor error resumes the recorded request.
 */
export function providerCharges(row: { provider_request_id: string | null; provider_request_generation: number }): number {
  return row.provider_request_generation + (row.provider_request_id === null ? 0 : 1);
}

/** The same rule in SQL, over a generation_jobs row aliased `alias`: the job has paid the vendor. */
export function providerChargedSql(alias: string): string {
  return `(${alias}.provider_request_id IS NOT NULL OR ${alias}.provider_request_generation > 0)`;
}
