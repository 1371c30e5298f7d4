// The gateway: telemetry first (it must patch HTTP and gRPC before they load), then
// configuration, wiring and serving; shutdown in reverse.
import { startTelemetry } from '@atelier/telemetry';

const telemetry = await startTelemetry({ serviceName: 'gateway' });

const { loadConfigOrExit } = await import('@atelier/config');
const { createLogger } = await import('@atelier/logging');
const { installShutdownHandlers } = await import('@atelier/lifecycle');
const { gatewayConfigChecks, gatewayConfigSpec } = await import('./config.js');
const { startGatewayApp } = await import('./gateway-app.js');

const { checkNatsCredentials } = await import('@atelier/nats');
const config = loadConfigOrExit('gateway', gatewayConfigSpec, process.env, [...gatewayConfigChecks, checkNatsCredentials]);
const logger = createLogger({ service: 'gateway', level: config.LOG_LEVEL });
const gateway = await startGatewayApp(config, logger);
logger.info({ port: config.HTTP_PORT }, 'gateway serving HTTP');

installShutdownHandlers(
  async () => {
    await gateway.close();
    await telemetry.shutdown();
  },
  { logger, graceMs: config.SHUTDOWN_GRACE_MS + 5_000 },
);
