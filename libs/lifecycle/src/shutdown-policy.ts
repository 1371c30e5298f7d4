/**
 * When a stopping process forces its own exit. A configuration variable (milliseconds) bounds its
 * drain — in-flight work finishes, or is handed back, within it — and the margin is what the
 * process may still take afterwards to close its connections and flush its telemetry. The chart
 * derives each pod's terminationGracePeriodSeconds from the same two numbers
 * (charts/atelier/templates/_helpers.tpl, `atelier.shutdownMarginMs`; tools/deploy holds them equal),
 * so that the process, not SIGKILL, ends the drain.
 */
export interface ShutdownPolicy<V extends string = string> {
  /** The variable bounding the drain, e.g. SHUTDOWN_GRACE_MS. */
  readonly drainVariable: V;
  readonly marginMs: number;
}

/**
 * The policy of the services: in-flight calls may finish within SHUTDOWN_GRACE_MS (the server
 * cancels the rest then), and closing pools, clients and telemetry takes at most 5 s more.
 */
export const GRACEFUL_SHUTDOWN = { drainVariable: 'SHUTDOWN_GRACE_MS', marginMs: 5_000 } as const satisfies ShutdownPolicy;

/** When the process gives up draining and exits (ms after the first SIGTERM). */
export function forcedExitMs<V extends string>(policy: ShutdownPolicy<V>, config: Readonly<Record<V, number>>): number {
  return config[policy.drainVariable] + policy.marginMs;
}
