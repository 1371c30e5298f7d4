// The media service's process. Telemetry starts before anything else loads (it patches gRPC and pg
// as they load), so the wiring, media-app.ts, is imported only after it.
import { startTelemetry } from '@atelier/telemetry';

const telemetry = await startTelemetry({ serviceName: 'media' });
const { runMedia } = await import('./media-app.js');
await runMedia(telemetry);
