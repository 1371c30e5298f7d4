import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace, type Attributes } from '@opentelemetry/api';

/** W3C trace context as string headers (`traceparent`, `tracestate`): what crosses a process boundary. */
export type TraceCarrier = Record<string, string>;

export { SpanKind };

/**
 * The active trace context as a carrier, to store or send where no instrumentation carries it
 * (an outbox row, a NATS message). Null when there is nothing to carry: tracing is off (the
 * propagator is a no-op) or no span is active.
 */
export function currentTraceCarrier(): TraceCarrier | null {
  const carrier: TraceCarrier = {};
  propagation.inject(context.active(), carrier);
  return Object.keys(carrier).length > 0 ? carrier : null;
}

/** The carrier from anything that looks headers up by name (NATS headers, fetch Headers). */
export function traceCarrierFrom(get: (name: string) => string | undefined): TraceCarrier | null {
  const carrier: TraceCarrier = {};
  for (const name of ['traceparent', 'tracestate']) {
    const value = get(name);
    if (value) carrier[name] = value;
  }
  return carrier.traceparent ? carrier : null;
}

export interface SpanOptions {
  kind: SpanKind;
  /** The remote parent; without one the span continues the active context (or starts a trace). */
  parent?: TraceCarrier | null;
  attributes?: Attributes;
}

/**
 * Runs `work` inside a new span and ends it with the outcome (an error is recorded and rethrown).
 * `work` receives the span's own context as a carrier to pass on to the next hop. With tracing
 * off this costs a non-recording span and an empty carrier.
 */
export async function inSpan<T>(name: string, options: SpanOptions, work: (carrier: TraceCarrier) => Promise<T>): Promise<T> {
  const parentContext = options.parent ? propagation.extract(ROOT_CONTEXT, options.parent) : context.active();
  const tracer = trace.getTracer('atelier');
  return tracer.startActiveSpan(name, { kind: options.kind, attributes: options.attributes }, parentContext, async (span) => {
    try {
      const carrier: TraceCarrier = {};
      propagation.inject(context.active(), carrier);
      return await work(carrier);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message });
      throw error;
    } finally {
      span.end();
    }
  });
}
