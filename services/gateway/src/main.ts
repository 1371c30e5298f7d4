// The gateway's process. Telemetry starts before anything else loads (it patches HTTP and gRPC as
// they load), so the wiring, gateway-app.ts, is imported only after it.
import { startTelemetry } from '@atelier/telemetry';

const telemetry = await startTelemetry({ serviceName: 'gateway' });
const { runGateway } = await import('./gateway-app.js');
await runGateway(telemetry);
