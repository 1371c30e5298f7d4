import { SpanKind, SpanStatusCode, context, propagation, trace, type Span } from '@opentelemetry/api';
import type { OutgoingHttpHeaders } from 'node:http2';

// A no-op until a service starts telemetry (@atelier/telemetry registers the SDK), then real.
const tracer = trace.getTracer('@atelier/grpc');

/**
 * The client span of a unary call, named as OpenTelemetry's gRPC instrumentation names the
 * server's (`grpc.<service>/<Method>`), with the trace context put into the call's headers so
 * that the server's span is its child.
 */
export function startClientSpan(path: string, headers: OutgoingHttpHeaders): Span {
  const slash = path.indexOf('/', 1);
  const [service, method] = [path.slice(1, slash), path.slice(slash + 1)];
  const span = tracer.startSpan(`grpc.${service}/${method}`, {
    kind: SpanKind.CLIENT,
    attributes: { 'rpc.system': 'grpc', 'rpc.service': service, 'rpc.method': method },
  });
  propagation.inject(trace.setSpan(context.active(), span), headers);
  return span;
}

/** Ends a client span with the call's gRPC status code (0 for OK). */
export function endClientSpan(span: Span, code: number, message?: string): void {
  span.setAttribute('rpc.grpc.status_code', code);
  if (code !== 0) span.setStatus({ code: SpanStatusCode.ERROR, message });
  span.end();
}
