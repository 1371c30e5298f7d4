import { Histogram, type Registry } from 'prom-client';

/** Told of every finished gRPC call: full method path, status name (`OK`, `NOT_FOUND` …), seconds. */
export type GrpcCallObserver = (method: string, code: string, seconds: number) => void;

const GRPC_LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** `atelier_grpc_server_handling_seconds{method, code}`: latency and outcome of every served call. */
export function grpcServerMetrics(registry: Registry): GrpcCallObserver {
  const handling = new Histogram({
    name: 'atelier_grpc_server_handling_seconds',
    help: 'gRPC calls served, by full method and status code, from receipt to the answer',
    labelNames: ['method', 'code'] as const,
    buckets: GRPC_LATENCY_BUCKETS,
    registers: [registry],
  });
  return (method, code, seconds) => handling.observe({ method, code }, seconds);
}
