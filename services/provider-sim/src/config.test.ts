import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '@atelier/config';
import { providerSimConfigSpec } from './config.js';

describe('provider-sim config - environment', () => {
  it('has the documented defaults', () => {
    expect(loadConfig(providerSimConfigSpec, {})).toEqual({
      HTTP_PORT: 8090,
      LOG_LEVEL: 'info',
      SHUTDOWN_GRACE_MS: 5000,
      PROVIDER_SIM_API_KEYS: undefined,
      PROVIDER_SIM_API_KEYS_FILE: undefined,
      PROVIDER_SIM_LATENCY_MS: 1500,
      PROVIDER_SIM_FAILURE_RATE: 0,
      PROVIDER_SIM_FAILURE_KIND: 'prediction_failed',
      PROVIDER_SIM_MAX_PREDICTIONS: 2000,
      PROVIDER_SIM_MAX_OPEN_PREDICTIONS: undefined,
      PROVIDER_SIM_RETRY_AFTER_SECONDS: 1,
      PUBLIC_URL: undefined,
    });
  });

  it('splits the API keys on commas and reads the failure rate as a decimal', () => {
    const config = loadConfig(providerSimConfigSpec, {
      PROVIDER_SIM_API_KEYS: ' key-a, key-b ,,',
      PROVIDER_SIM_FAILURE_RATE: '0.25',
      PROVIDER_SIM_FAILURE_KIND: 'hang',
    });
    expect(config.PROVIDER_SIM_API_KEYS).toEqual(['key-a', 'key-b']);
    expect(config.PROVIDER_SIM_FAILURE_RATE).toBe(0.25);
    expect(config.PROVIDER_SIM_FAILURE_KIND).toBe('hang');
    expect(loadConfig(providerSimConfigSpec, { PROVIDER_SIM_FAILURE_RATE: '1' }).PROVIDER_SIM_FAILURE_RATE).toBe(1);
  });

  it('names every bad variable at once', () => {
    let error: unknown;
    try {
      loadConfig(providerSimConfigSpec, {
        HTTP_PORT: 'eighty',
        PROVIDER_SIM_FAILURE_RATE: '1.5',
        PROVIDER_SIM_FAILURE_KIND: 'explode',
        PROVIDER_SIM_API_KEYS: ' , ',
        PUBLIC_URL: 'ftp://files',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const variables = (error as ConfigError).problems.map((problem) => problem.variable);
    expect(variables).toEqual([
      'HTTP_PORT',
      'PROVIDER_SIM_API_KEYS',
      'PROVIDER_SIM_FAILURE_RATE',
      'PROVIDER_SIM_FAILURE_KIND',
      'PUBLIC_URL',
    ]);
    expect((error as ConfigError).message).toContain('PROVIDER_SIM_FAILURE_RATE must be a decimal between 0 and 1, got "1.5"');
  });
});
