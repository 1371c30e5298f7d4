import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { SpanKind } from '@opentelemetry/api';
import { startTelemetry } from './index.js';

// Telemetry must start before gRPC is loaded, so everything else is imported dynamically.
// Spans are exported asynchronously (after the resource's attributes settle): read them after a flush.
const exporter = new InMemorySpanExporter();
const processor = new SimpleSpanProcessor({ exporter });
const telemetry = await startTelemetry({ serviceName: 'telemetry-test', spanProcessors: [processor] });

afterAll(() => telemetry.shutdown());

interface FixtureSpan {
  name: string;
  kind: SpanKind;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
}

describe('telemetry - bootstrap', () => {
  it('is off, and costs nothing, without an OTLP endpoint', async () => {
    const off = await startTelemetry({ serviceName: 'x', otlpEndpoint: undefined });
    expect(off.enabled).toBe(process.env.OTEL_EXPORTER_OTLP_ENDPOINT ? true : false);
    await off.shutdown();
  });

  it('traces a gRPC call from client to server in one trace, in a process started as services are', () => {
    const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), 'start-telemetry.fixture.ts');
    const run = spawnSync(process.execPath, ['--import', 'tsx', fixture], { encoding: 'utf8', timeout: 30_000 });
    expect(run.status, run.stderr).toBe(0);
    const spans = (JSON.parse(run.stdout) as FixtureSpan[]).filter((s) => s.name === 'grpc.atelier.catalog.v1.CatalogService/GetCatalog');
    const clientSpan = spans.find((s) => s.kind === SpanKind.CLIENT);
    const serverSpan = spans.find((s) => s.kind === SpanKind.SERVER);
    expect(clientSpan, run.stdout).toBeDefined();
    expect(serverSpan, run.stdout).toBeDefined();
    expect(serverSpan!.traceId).toBe(clientSpan!.traceId);
    expect(serverSpan!.parentSpanId).toBe(clientSpan!.spanId);
  });
});

describe('telemetry - trace context across process boundaries', () => {
  it('carries a trace through a stored carrier: producer and consumer spans join the original trace', async () => {
    const { currentTraceCarrier, inSpan, traceCarrierFrom, SpanKind } = await import('./index.js');
    const { trace } = await import('@opentelemetry/api');
    exporter.reset();
    const tracer = trace.getTracer('test');
    // A request span stores its context (as the jobs service does in the outbox row)…
    const stored = tracer.startActiveSpan('request', (span) => {
      const carrier = currentTraceCarrier();
      span.end();
      return carrier;
    });
    expect(stored?.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    // …a relay publishes under it and sends its own context in headers…
    const headers = await inSpan('publish', { kind: SpanKind.PRODUCER, parent: stored }, async (carrier) => carrier);
    // …and a consumer elsewhere continues from those headers.
    await inSpan('process', { kind: SpanKind.CONSUMER, parent: traceCarrierFrom((name) => headers[name]) }, async () => undefined);
    await expect(inSpan('fails', { kind: SpanKind.CLIENT, parent: stored }, async () => Promise.reject(new Error('boom')))).rejects.toThrow(
      'boom',
    );

    await processor.forceFlush();
    const spans = Object.fromEntries(exporter.getFinishedSpans().map((s) => [s.name, s]));
    const traceId = spans.request!.spanContext().traceId;
    expect(spans.publish!.spanContext().traceId).toBe(traceId);
    expect(spans.publish!.parentSpanContext?.spanId).toBe(spans.request!.spanContext().spanId);
    expect(spans.process!.spanContext().traceId).toBe(traceId);
    expect(spans.process!.parentSpanContext?.spanId).toBe(spans.publish!.spanContext().spanId);
    expect(spans.fails!.status.code).toBe(2); // ERROR
  });

  it('has nothing to carry outside a span', async () => {
    const { currentTraceCarrier, traceCarrierFrom } = await import('./index.js');
    expect(currentTraceCarrier()).toBeNull();
    expect(traceCarrierFrom(() => undefined)).toBeNull();
  });
});
