import { runService } from '@atelier/lifecycle';
import type { Telemetry } from '@atelier/telemetry';
import { watchSecretFile } from '@atelier/config';
import { parseKeyList, providerSimConfigSpec, shutdownPolicy } from './config.js';
import { buildProviderSim } from './server.js';

/**
 * The provider-sim process (main.ts hands over once telemetry runs): the simulator from its
 * configuration, listening on HTTP_PORT; SIGTERM closes the server (in-flight requests finish).
 */
export function runProviderSim(telemetry: Telemetry): Promise<void> {
  return runService({
    name: 'provider-sim',
    telemetry,
    spec: providerSimConfigSpec,
    shutdown: shutdownPolicy,
    async start(config, logger) {
      const keysFile = config.PROVIDER_SIM_API_KEYS_FILE
        ? watchSecretFile(config.PROVIDER_SIM_API_KEYS_FILE, {
            parse: parseKeyList,
            pollIntervalMs: 500,
            onError: (error) => logger.error({ err: error }, 'PROVIDER_SIM_API_KEYS_FILE cannot be used: the keys in use stay'),
            onChange: (keys) => logger.info({ keys: keys.length }, 'accepted API keys read again'),
          })
        : undefined;
      const { app } = buildProviderSim({
        logger,
        apiKeys: keysFile ? () => keysFile.current() : config.PROVIDER_SIM_API_KEYS,
        latencyMs: config.PROVIDER_SIM_LATENCY_MS,
        failureRate: config.PROVIDER_SIM_FAILURE_RATE,
        failureKind: config.PROVIDER_SIM_FAILURE_KIND,
        maxPredictions: config.PROVIDER_SIM_MAX_PREDICTIONS,
        maxOpenPredictions: config.PROVIDER_SIM_MAX_OPEN_PREDICTIONS,
        retryAfterSeconds: config.PROVIDER_SIM_RETRY_AFTER_SECONDS,
        publicUrl: config.PUBLIC_URL,
      });
      await app.listen({ port: config.HTTP_PORT, host: '0.0.0.0' });
      const address = app.server.address();
      logger.info(
        {
          port: typeof address === 'object' && address ? address.port : config.HTTP_PORT,
          latencyMs: config.PROVIDER_SIM_LATENCY_MS,
          failureRate: config.PROVIDER_SIM_FAILURE_RATE,
          failureKind: config.PROVIDER_SIM_FAILURE_KIND,
          apiKeysConfigured: config.PROVIDER_SIM_API_KEYS !== undefined || keysFile !== undefined,
        },
        'provider-sim serving HTTP',
      );
      return {
        async stop() {
          await app.close();
          keysFile?.close();
        },
      };
    },
  });
}
