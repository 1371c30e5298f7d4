// provider-sim: telemetry first (it must patch http before Fastify loads), then configuration,
// the app and serving; SIGTERM closes the server (in-flight requests finish) and exits.
import { startTelemetry } from '@atelier/telemetry';

const telemetry = await startTelemetry({ serviceName: 'provider-sim' });

const { loadConfigOrExit } = await import('@atelier/config');
const { createLogger } = await import('@atelier/logging');
const { installShutdownHandlers } = await import('@atelier/lifecycle');
const { providerSimConfigSpec } = await import('./config.js');
const { buildProviderSim } = await import('./server.js');

const config = loadConfigOrExit('provider-sim', providerSimConfigSpec);
const logger = createLogger({ service: 'provider-sim', level: config.LOG_LEVEL });

const { app } = buildProviderSim({
  logger,
  apiKeys: config.PROVIDER_SIM_API_KEYS,
  latencyMs: config.PROVIDER_SIM_LATENCY_MS,
  failureRate: config.PROVIDER_SIM_FAILURE_RATE,
  failureKind: config.PROVIDER_SIM_FAILURE_KIND,
  maxPredictions: config.PROVIDER_SIM_MAX_PREDICTIONS,
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
    apiKeysConfigured: config.PROVIDER_SIM_API_KEYS !== undefined,
  },
  'provider-sim serving HTTP',
);

installShutdownHandlers(
  async () => {
    await app.close();
    await telemetry.shutdown();
  },
  { logger, graceMs: config.SHUTDOWN_GRACE_MS },
);
