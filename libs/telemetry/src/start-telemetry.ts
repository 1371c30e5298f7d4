import { createRequire } from 'node:module';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';

export interface TelemetryOptions {
  serviceName: string;
  /** OTEL_EXPORTER_OTLP_ENDPOINT; tracing is off when it is unset and no processor is given. */
  otlpEndpoint?: string;
  /** For tests: span processors (e.g. an in-memory exporter) instead of OTLP. */
  spanProcessors?: SpanProcessor[];
}

export interface Telemetry {
  readonly enabled: boolean;
  /** Flushes pending spans and stops the SDK. Idempotent. */
  shutdown(): Promise<void>;
}

/**
 * Starts OpenTelemetry tracing with the gRPC, HTTP and pg instrumentations. It must run before
 * those libraries are imported (instrumentation patches them on load), so a service's
 * `main.ts` calls it first and imports the rest of the service dynamically afterwards.
 * Off unless an OTLP endpoint is configured: a service without a collector pays nothing, not
 * even the memory of loading the SDK (about 25 MB), which is why it is imported on demand.
 */
export async function startTelemetry(options: TelemetryOptions): Promise<Telemetry> {
  const endpoint = options.otlpEndpoint ?? process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint && !options.spanProcessors) {
    return { enabled: false, shutdown: async () => {} };
  }
  // The instrumentations are created (which enables their load hooks) and the modules they patch
  // are loaded before the SDK is imported: the SDK's own gRPC exporters import @grpc/grpc-js, and
  // an ES module import takes a snapshot of its exports — ts-proto clients would then bind the
  // unpatched client constructor and no client span would ever be made.
  const [{ GrpcInstrumentation }, { HttpInstrumentation }, { PgInstrumentation }] = await Promise.all([
    import('@opentelemetry/instrumentation-grpc'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-pg'),
  ]);
  const instrumentations = [
    new GrpcInstrumentation(),
    new HttpInstrumentation({ ignoreIncomingRequestHook: (request) => /^\/(healthz|readyz|metrics)/.test(request.url ?? '') }),
    new PgInstrumentation({ requireParentSpan: true }),
  ];
  primeInstrumentedModules();
  const [{ NodeSDK }, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const sdk = new NodeSDK({
    resource: resourceFromAttributes({ 'service.name': options.serviceName, 'service.namespace': 'atelier' }),
    // Given an exporter, the SDK batches its spans with the standard OTEL_BSP_* settings (delay,
    // queue and batch sizes); a BatchSpanProcessor built here would ignore them.
    ...(options.spanProcessors
      ? { spanProcessors: options.spanProcessors }
      : { traceExporter: new OTLPTraceExporter({ url: `${endpoint!.replace(/\/$/, '')}/v1/traces` }) }),
    // Traces only: metrics are scraped from /metrics (Prometheus), logs go to stdout.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations,
  });
  sdk.start();
  let stopped: Promise<void> | undefined;
  return {
    enabled: true,
    shutdown: () => (stopped ??= sdk.shutdown().catch(() => {})),
  };
}

/**
 * Instrumentation patches a CommonJS module when it is `require`d while its instrumentation is
 * enabled. An ESM `import` of a CommonJS module bypasses that hook and snapshots its exports
 * unpatched (ts-proto clients would then get no client spans). Requiring the instrumented
 * modules here, once the instrumentations exist and before anything imports them, patches
 * their exports before any ESM import takes its snapshot.
 */
function primeInstrumentedModules(): void {
  const require = createRequire(import.meta.url);
  for (const name of ['@grpc/grpc-js', 'pg']) {
    try {
      require(name);
    } catch {
      // not installed in this service: nothing to patch
    }
  }
}
