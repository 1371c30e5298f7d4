/**
 * Prometheus metrics for Atelier services: one registry per service (process metrics included),
 * the gRPC server latency histogram, and the HTTP endpoint Prometheus scrapes.
 */
export { createMetricsRegistry } from './metrics-registry.js';
export { grpcServerMetrics, type GrpcCallObserver } from './grpc-server-metrics.js';
export { startMetricsServer, serveMetrics, type MetricsServer } from './metrics-server.js';
export { createServiceMetrics, startServiceMetrics, type ServiceMetrics, type ServedServiceMetrics } from './service-metrics.js';
export { Counter, Gauge, Histogram, type Registry } from 'prom-client';
