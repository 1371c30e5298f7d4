// The gateway: telemetry first (it must patch HTTP and gRPC before they load), then
// configuration, wiring and serving; shutdown in reverse.
import { startTelemetry } from '@atelier/telemetry';

const telemetry = await startTelemetry({ serviceName: 'gateway' });

const { loadConfigOrExit } = await import('@atelier/config');
const { createLogger } = await import('@atelier/logging');
const { installShutdownHandlers } = await import('@atelier/lifecycle');
const { gatewayConfigSpec } = await import('./config.js');
const { startGatewayApp } = await import('./gateway-app.js');

const { checkNatsCredentials } = await import('@atelier/nats');
const config = loadConfigOrExit('gateway', gatewayConfigSpec, process.env, [checkNatsCredentials]);
if (!config.JWT_PUBLIC_KEY && !config.JWKS_URL) {
  process.stderr.write(
    'gateway: invalid configuration:\n  JWT_PUBLIC_KEY or JWKS_URL is required (tokens cannot be verified without one)\n',
  );
  process.exit(78);
}
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
