import { afterAll, describe, expect, it } from 'vitest';
import { Counter, createMetricsRegistry, grpcServerMetrics, startMetricsServer, type MetricsServer } from './index.js';

let server: MetricsServer | undefined;
afterAll(async () => {
  await server?.close();
});

describe('metrics', () => {
  it('serves process metrics, gRPC latency and custom series with the service label at /metrics', async () => {
    const registry = createMetricsRegistry('unit-test');
    const observe = grpcServerMetrics(registry);
    observe('/atelier.test.v1.Test/Do', 'OK', 0.003);
    observe('/atelier.test.v1.Test/Do', 'NOT_FOUND', 0.001);
    new Counter({ name: 'atelier_test_things_total', help: 'things', registers: [registry] }).inc(3);
    server = await startMetricsServer({ registry, port: 0, host: '127.0.0.1' });

    const response = await fetch(`http://127.0.0.1:${server.port}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    const body = await response.text();
    expect(body).toMatch(/^process_cpu_seconds_total\{service="unit-test"\} /m);
    expect(body).toContain('atelier_grpc_server_handling_seconds_count{service="unit-test",method="/atelier.test.v1.Test/Do",code="OK"} 1');
    expect(body).toContain('code="NOT_FOUND"');
    expect(body).toContain('atelier_test_things_total{service="unit-test"} 3');
  });

  it('answers 404 off the metrics path', async () => {
    const registry = createMetricsRegistry('unit-test-404');
    const other = await startMetricsServer({ registry, port: 0, host: '127.0.0.1' });
    try {
      expect((await fetch(`http://127.0.0.1:${other.port}/`)).status).toBe(404);
    } finally {
      await other.close();
    }
  });
});
