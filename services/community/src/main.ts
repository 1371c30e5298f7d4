// The community service's process. Telemetry starts before anything else loads (it patches gRPC
// and pg as they load), so the wiring, community-app.ts, is imported only after it.
import { startTelemetry } from '@atelier/telemetry';

const telemetry = await startTelemetry({ serviceName: 'community' });
const { runCommunity } = await import('./community-app.js');
await runCommunity(telemetry);
