import type { Registry } from 'prom-client';
import { grpcServerMetrics, type GrpcCallObserver } from './grpc-server-metrics.js';
import { createMetricsRegistry } from './metrics-registry.js';
import { startMetricsServer } from './metrics-server.js';

/** A gRPC service's metrics: its registry, the observer its gRPC server reports calls to. */
export interface ServiceMetrics {
  readonly registry: Registry;
  readonly grpcCalls: GrpcCallObserver;
}

export interface ServedServiceMetrics extends ServiceMetrics {
  /** The bound /metrics port (the asked one, or the OS's pick for 0). */
  readonly port: number;
  close(): Promise<void>;
}

/** A registry with the process metrics and the gRPC latency histogram, not served (tests, embedding). */
export function createServiceMetrics(service: string): ServiceMetrics {
  const registry = createMetricsRegistry(service);
  return { registry, grpcCalls: grpcServerMetrics(registry) };
}

/** createServiceMetrics, served at http://host:port/metrics for Prometheus. */
export async function startServiceMetrics(service: string, options: { port: number; host?: string }): Promise<ServedServiceMetrics> {
  const metrics = createServiceMetrics(service);
  const server = await startMetricsServer({ registry: metrics.registry, port: options.port, host: options.host });
  return { ...metrics, port: server.port, close: () => server.close() };
}
