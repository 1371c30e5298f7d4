// The catalog service's process. Telemetry starts before anything else loads (it patches gRPC and
// pg as they load), so the wiring, catalog-app.ts, is imported only after it.
import { startTelemetry } from '@atelier/telemetry';

const telemetry = await startTelemetry({ serviceName: 'catalog' });
const { runCatalog } = await import('./catalog-app.js');
await runCatalog(telemetry);
