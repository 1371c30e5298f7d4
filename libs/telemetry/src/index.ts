export { startTelemetry, type Telemetry, type TelemetryOptions } from './start-telemetry.js';
export { currentTraceCarrier, traceCarrierFrom, inSpan, SpanKind, type TraceCarrier, type SpanOptions } from './trace-context.js';
