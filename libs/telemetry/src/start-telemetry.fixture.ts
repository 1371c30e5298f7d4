// Run by start-telemetry.test.ts as a process of its own, the way a service starts (plain node
// with tsx, ES modules, telemetry first): one gRPC call from a ts-proto client to a server, then
// the finished spans as JSON on stdout. Inside vitest, modules load differently and an
// instrumentation that misses ES-module clients would go unnoticed.
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { startTelemetry } from './index.js';

// Spans are exported asynchronously (after the resource's attributes settle): read them after a flush.
const exporter = new InMemorySpanExporter();
const processor = new SimpleSpanProcessor({ exporter });
const telemetry = await startTelemetry({ serviceName: 'telemetry-fixture', spanProcessors: [processor] });

const { catalogV1, loadDescriptorSet } = await import('@atelier/contracts');
const { createServiceClient, registerService, startGrpcServer } = await import('@atelier/grpc');
const { testSecurity, unusedHandlers } = await import('@atelier/testing');
const [catalogIdentity, gatewayIdentity] = [await testSecurity('catalog'), await testSecurity('gateway')];
const silent = { debug: () => {}, info: () => {}, error: () => {} };
const server = await startGrpcServer({
  host: '127.0.0.1',
  port: 0,
  healthPort: 0,
  security: catalogIdentity,
  logger: silent,
  descriptorSet: loadDescriptorSet(),
  services: [
    registerService(
      'atelier.catalog.v1.CatalogService',
      catalogV1.CatalogServiceService,
      { ...unusedHandlers(catalogV1.CatalogServiceService), getCatalog: async () => ({ models: [], styles: [] }) },
      silent,
      { gateway: ['getCatalog'] },
    ),
  ],
});
const client = createServiceClient(catalogV1.CatalogServiceClient, `127.0.0.1:${server.port}`, gatewayIdentity);
await client.getCatalog({ mediaKind: 1 });
client.close();
await server.shutdown(100);
await processor.forceFlush();

const spans = exporter.getFinishedSpans().map((span) => ({
  name: span.name,
  kind: span.kind,
  traceId: span.spanContext().traceId,
  spanId: span.spanContext().spanId,
  parentSpanId: span.parentSpanContext?.spanId,
}));
await telemetry.shutdown();
process.stdout.write(JSON.stringify(spans));
