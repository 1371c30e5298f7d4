// The webhooks service's process. Telemetry starts before anything else loads (it patches gRPC
// and pg as they load), so the wiring, webhooks-app.ts, is imported only after it.
import { startTelemetry } from '@atelier/telemetry';

const telemetry = await startTelemetry({ serviceName: 'webhooks' });
const { runWebhooks } = await import('./webhooks-app.js');
await runWebhooks(telemetry);
