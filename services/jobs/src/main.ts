// The jobs service's process. Telemetry starts before anything else loads (it patches gRPC and pg
// as they load), so the wiring, jobs-app.ts, is imported only after it.
import { startTelemetry } from '@atelier/telemetry';

const telemetry = await startTelemetry({ serviceName: 'jobs' });
const { runJobs } = await import('./jobs-app.js');
await runJobs(telemetry);
