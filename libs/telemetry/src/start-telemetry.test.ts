import { afterAll, describe, expect, it } from 'vitest';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { SpanKind } from '@opentelemetry/api';
import { startTelemetry } from './index.js';

// Telemetry must start before gRPC is loaded, so everything else is imported dynamically.
const exporter = new InMemorySpanExporter();
const telemetry = await startTelemetry({ serviceName: 'telemetry-test', spanProcessors: [new SimpleSpanProcessor(exporter)] });

afterAll(() => telemetry.shutdown());

describe('telemetry - bootstrap', () => {
  it('is off, and costs nothing, without an OTLP endpoint', async () => {
    const off = await startTelemetry({ serviceName: 'x', otlpEndpoint: undefined });
    expect(off.enabled).toBe(process.env.OTEL_EXPORTER_OTLP_ENDPOINT ? true : false);
    await off.shutdown();
  });

  it('traces a gRPC call from client to server in one trace', async () => {
    const { catalogV1, loadDescriptorSet } = await import('@atelier/contracts');
    const { createServiceClient, registerService, startGrpcServer } = await import('@atelier/grpc');
    const silent = { debug: () => {}, info: () => {}, error: () => {} };
    const notUsed = async (): Promise<never> => {
      throw new Error('not used');
    };
    const server = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      logger: silent,
      descriptorSet: loadDescriptorSet(),
      services: [
        registerService(
          'atelier.catalog.v1.CatalogService',
          catalogV1.CatalogServiceService,
          {
            getCatalog: async () => ({ models: [], styles: [] }),
            getModel: notUsed,
            getStyle: notUsed,
            listCatalogEntries: notUsed,
            upsertModel: notUsed,
            upsertStyle: notUsed,
            setModelEnabled: notUsed,
            setStyleEnabled: notUsed,
          },
          silent,
        ),
      ],
    });
    const client = createServiceClient(catalogV1.CatalogServiceClient, `127.0.0.1:${server.port}`);
    await client.getCatalog({ mediaKind: 1 });
    client.close();
    await server.shutdown(100);

    const spans = exporter.getFinishedSpans().filter((s) => s.name === 'grpc.atelier.catalog.v1.CatalogService/GetCatalog');
    expect(spans).toHaveLength(2);
    const clientSpan = spans.find((s) => s.kind === SpanKind.CLIENT);
    const serverSpan = spans.find((s) => s.kind === SpanKind.SERVER);
    expect(clientSpan).toBeDefined();
    expect(serverSpan?.spanContext().traceId).toBe(clientSpan?.spanContext().traceId);
    expect(serverSpan?.parentSpanContext?.spanId).toBe(clientSpan?.spanContext().spanId);
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
