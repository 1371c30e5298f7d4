// The worker: telemetry first (it must patch gRPC before it loads), then configuration, wiring
// and consuming. SIGTERM drains: stop pulling, finish or hand back running jobs, exit 0.
import { startTelemetry } from '@atelier/telemetry';

const telemetry = await startTelemetry({ serviceName: 'worker' });

const { loadConfigOrExit } = await import('@atelier/config');
const { checkNatsCredentials } = await import('@atelier/nats');
const { createLogger } = await import('@atelier/logging');
const { installShutdownHandlers } = await import('@atelier/lifecycle');
const { workerConfigSpec } = await import('./config.js');
const { startWorkerApp } = await import('./worker-app.js');

const config = loadConfigOrExit('worker', workerConfigSpec, process.env, [checkNatsCredentials]);
const logger = createLogger({ service: 'worker', level: config.LOG_LEVEL });
const app = await startWorkerApp(config, logger);
logger.info(
  {
    workerId: app.workerId,
    interactive: config.WORKER_CONCURRENCY_INTERACTIVE,
    background: config.WORKER_CONCURRENCY_BACKGROUND,
    metricsPort: config.HTTP_PORT,
  },
  'worker consuming',
);

installShutdownHandlers(
  async () => {
    await app.stop();
    await telemetry.shutdown();
  },
  { logger, graceMs: config.WORKER_DRAIN_TIMEOUT_MS + 10_000 },
);
