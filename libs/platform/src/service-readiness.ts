import { checkHealth } from '@atelier/grpc';
import type { PlatformService } from './platform-services.js';

/** Where one running instance of a service listens (its own ports, or free ones a test handed it). */
export interface ServiceAddress {
  host: string;
  port: number;
  /** A gRPC service's GRPC_HEALTH_PORT. */
  healthPort?: number;
}

/**
 * Whether the instance takes traffic, asked the way Kubernetes asks it: a gRPC service's plaintext
 * health port answers SERVING for the overall service "", an HTTP service's readiness path answers
 * 200. False while nothing listens yet.
 */
export async function isServiceReady(service: PlatformService, address: ServiceAddress): Promise<boolean> {
  try {
    if (service.protocol === 'grpc') {
      return (await checkHealth(`${address.host}:${address.healthPort ?? service.healthPort}`)) === 'SERVING';
    }
    return (await fetch(`http://${address.host}:${address.port}${service.readinessPath}`)).ok;
  } catch {
    return false;
  }
}
