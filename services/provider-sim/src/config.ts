import { int, oneOf, optional, port, url, type ConfigOf, type VarSpec } from '@atelier/config';
import type { ShutdownPolicy } from '@atelier/lifecycle';
import { SIMULATION_KINDS } from './domain/simulation-directives.js';

/** A comma-separated list of bearer tokens; a secret, so a bad value is never echoed. */
function apiKeyList(): VarSpec<readonly string[]> {
  return {
    secret: true,
    describe: 'a comma-separated list of API keys',
    parse(raw) {
      const keys = (raw ?? '')
        .split(',')
        .map((key) => key.trim())
        .filter((key) => key !== '');
      if (keys.length === 0) throw new Error('must list at least one key');
      return keys;
    },
  };
}

/** A probability written as a decimal, `0` to `1` (e.g. `0.25`). */
function fraction(defaultValue: number): VarSpec<number> {
  return {
    describe: 'a decimal between 0 and 1',
    parse(raw) {
      const value = raw === undefined || raw.trim() === '' ? String(defaultValue) : raw.trim();
      const parsed = Number(value);
      if (!/^\d*\.?\d+$/.test(value) || parsed > 1) throw new Error(`must be a decimal between 0 and 1, got "${value}"`);
      return parsed;
    },
  };
}

/** Environment variables of provider-sim (README, "Configuration of provider-sim"). */
export const providerSimConfigSpec = {
  /** 0 asks the OS for a free port (tests). */
  HTTP_PORT: port(8090),
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
  /** How long in-flight requests may take to finish on SIGTERM. */
  SHUTDOWN_GRACE_MS: int({ default: 5_000, min: 0, max: 600_000 }),
  /** Unset: any non-empty bearer token is accepted (local runs). */
  PROVIDER_SIM_API_KEYS: optional(apiKeyList()),
  /** How long a prediction spends `processing`; `#sim-latency=<ms>` overrides it per request. */
  PROVIDER_SIM_LATENCY_MS: int({ default: 1_500, min: 0, max: 600_000 }),
  /** Share of new predictions that get PROVIDER_SIM_FAILURE_KIND. */
  PROVIDER_SIM_FAILURE_RATE: fraction(0),
  PROVIDER_SIM_FAILURE_KIND: oneOf(SIMULATION_KINDS, 'prediction_failed'),
  /** Memory cap: beyond it the oldest finished predictions and their outputs are dropped. */
  PROVIDER_SIM_MAX_PREDICTIONS: int({ default: 2_000, min: 1, max: 1_000_000 }),
  /** Base of output_url; unset: `http://127.0.0.1:<bound port>`. */
  PUBLIC_URL: optional(url({ protocols: ['http:', 'https:'] })),
} as const;

export type ProviderSimConfig = ConfigOf<typeof providerSimConfigSpec>;

/**
 * On SIGTERM in-flight requests may finish within SHUTDOWN_GRACE_MS, and closing the server is all
 * there is to stop: the process forces its exit at SHUTDOWN_GRACE_MS itself.
 */
export const shutdownPolicy: ShutdownPolicy<'SHUTDOWN_GRACE_MS'> = { drainVariable: 'SHUTDOWN_GRACE_MS', marginMs: 0 };
