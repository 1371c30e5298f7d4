// pet-directory-sim's process. Telemetry starts before anything else loads (it patches gRPC as it
// loads), so the wiring, pet-directory-sim-app.ts, is imported only after it.
import { startTelemetry } from '@atelier/telemetry';

const telemetry = await startTelemetry({ serviceName: 'pet-directory-sim' });
const { runPetDirectorySim } = await import('./pet-directory-sim-app.js');
await runPetDirectorySim(telemetry);
