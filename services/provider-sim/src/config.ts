import { doc, int, oneOf, optional, port, str, url, type ConfigOf, type VarSpec } from '@atelier/config';
import type { ShutdownPolicy } from '@atelier/lifecycle';
import { SIMULATION_KINDS } from './domain/simulation-directives.js';

/** Bearer tokens separated by commas or line breaks; at least one. Never echoes a key. */
export function parseKeyList(raw: string | undefined): readonly string[] {
  const keys = (raw ?? '')
    .split(/[,\n]/)
    .map((key) => key.trim())
    .filter((key) => key !== '');
  if (keys.length === 0) throw new Error('must list at least one key');
  return keys;
}

/** A comma-separated list of bearer tokens; a secret, so a bad value is never echoed. */
function apiKeyList(): VarSpec<readonly string[]> {
  return { secret: true, describe: 'a comma-separated list of API keys', parse: parseKeyList };
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

/** Environment variables of provider-sim (docs/configuration.md is generated from this spec). */
export const providerSimConfigSpec = {
  HTTP_PORT: doc(port(8090), 'the vendor API, `/healthz`, `/metrics`; 0: a free port (tests)'),
  LOG_LEVEL: doc(oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'), 'the least severe level logged'),
  SHUTDOWN_GRACE_MS: doc(int({ default: 5_000, min: 0, max: 600_000 }), 'how long in-flight requests may run after SIGTERM'),
  PROVIDER_SIM_API_KEYS: doc(optional(apiKeyList()), 'comma-separated bearer tokens it accepts; unset: any non-empty token (local runs)'),
  PROVIDER_SIM_API_KEYS_FILE: doc(
    optional(str({ maxLength: 4096 })),
    'a file of accepted bearer tokens (comma- or newline-separated), read again when it changes (key rotation tests); wins over PROVIDER_SIM_API_KEYS',
  ),
  PROVIDER_SIM_LATENCY_MS: doc(
    int({ default: 1_500, min: 0, max: 600_000 }),
    'how long a prediction spends `processing`; `#sim-latency=<ms>` in a prompt overrides it',
  ),
  PROVIDER_SIM_FAILURE_RATE: doc(fraction(0), 'share of new predictions that get PROVIDER_SIM_FAILURE_KIND (random failure injection)'),
  PROVIDER_SIM_FAILURE_KIND: doc(oneOf(SIMULATION_KINDS, 'prediction_failed'), 'the failure PROVIDER_SIM_FAILURE_RATE injects'),
  PROVIDER_SIM_MAX_PREDICTIONS: doc(
    int({ default: 2_000, min: 1, max: 1_000_000 }),
    'memory cap: beyond it the oldest finished predictions and their outputs are dropped',
  ),
  PROVIDER_SIM_MAX_OPEN_PREDICTIONS: doc(
    optional(int({ min: 1, max: 100_000 })),
    "an account's cap of predictions running at once, as vendors have: one more POST answers 429 with Retry-After; unset: no cap",
  ),
  PROVIDER_SIM_RETRY_AFTER_SECONDS: doc(int({ default: 1, min: 1, max: 300 }), 'the `Retry-After` of every 429 it answers'),
  PUBLIC_URL: doc(optional(url({ protocols: ['http:', 'https:'] })), 'base of `output_url`', '`http://127.0.0.1:<bound port>`'),
} as const;

export type ProviderSimConfig = ConfigOf<typeof providerSimConfigSpec>;

/**
 * On SIGTERM in-flight requests may finish within SHUTDOWN_GRACE_MS, and closing the server is all
 * there is to stop: the process forces its exit at SHUTDOWN_GRACE_MS itself.
 */
export const shutdownPolicy: ShutdownPolicy<'SHUTDOWN_GRACE_MS'> = { drainVariable: 'SHUTDOWN_GRACE_MS', marginMs: 0 };
