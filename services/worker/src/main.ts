// The worker's process. Telemetry starts before anything else loads (it patches gRPC as it
// loads), so the wiring, worker-app.ts, is imported only after it.
import { startTelemetry } from '@atelier/telemetry';

const telemetry = await startTelemetry({ serviceName: 'worker' });
const { runWorker } = await import('./worker-app.js');
await runWorker(telemetry);
