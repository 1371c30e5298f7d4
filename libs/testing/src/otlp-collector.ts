import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** A span as an OTLP/HTTP JSON exporter sent it (ids in hex), with the service that sent it. */
export interface CollectedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
}

export interface OtlpCollector {
  /** Give services OTEL_EXPORTER_OTLP_ENDPOINT = this. */
  readonly endpoint: string;
  spans(): CollectedSpan[];
  /** Resolves with the spans once `done` holds for them; rejects with what arrived after timeoutMs. */
  waitFor(done: (spans: CollectedSpan[]) => boolean, timeoutMs?: number): Promise<CollectedSpan[]>;
  stop(): Promise<void>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpTraces {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: {
      spans?: { traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes?: OtlpAttribute[] }[];
    }[];
  }[];
}

const valueOf = (value: OtlpValue) => value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue;
const attributesOf = (attributes: OtlpAttribute[] = []) => Object.fromEntries(attributes.map((a) => [a.key, valueOf(a.value)]));

async function body(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  return request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
}

/**
 * A trace collector for tests: an OTLP/HTTP receiver on loopback that keeps the spans services
 * export (JSON encoding, as @opentelemetry/exporter-trace-otlp-http sends) in memory, so a test
 * can follow one trace across processes.
 */
export async function startOtlpCollector(): Promise<OtlpCollector> {
  const collected: CollectedSpan[] = [];
  const server = createServer((request, response) => {
    if (request.method !== 'POST' || request.url !== '/v1/traces') {
      response.writeHead(404).end();
      return;
    }
    body(request).then(
      (raw) => {
        const traces = JSON.parse(raw.toString('utf8')) as OtlpTraces;
        for (const resourceSpans of traces.resourceSpans ?? []) {
          const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? 'unknown');
          for (const scope of resourceSpans.scopeSpans ?? [])
            for (const span of scope.spans ?? [])
              collected.push({
                service,
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId ?? '',
                name: span.name,
                kind: span.kind,
                attributes: attributesOf(span.attributes),
              });
        }
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      },
      () => response.writeHead(400).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans: () => [...collected],
    async waitFor(done, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!done([...collected])) {
        if (Date.now() > deadline) {
          const seen = collected.map((s) => `${s.service}: ${s.name} (${s.traceId})`).join('\n');
          throw new Error(`the expected spans did not arrive within ${timeoutMs} ms; collected:\n${seen}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return [...collected];
    },
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
