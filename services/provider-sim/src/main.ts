// provider-sim's process. Telemetry starts before anything else loads (it patches http before
// Fastify loads), so the wiring, provider-sim-app.ts, is imported only after it.
import { startTelemetry } from '@atelier/telemetry';

const telemetry = await startTelemetry({ serviceName: 'provider-sim' });
const { runProviderSim } = await import('./provider-sim-app.js');
await runProviderSim(telemetry);
