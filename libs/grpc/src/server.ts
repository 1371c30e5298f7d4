import { Server, ServerCredentials, type ServiceDefinition, type UntypedServiceImplementation } from '@grpc/grpc-js';
import { loadFileDescriptorSetFromBuffer } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation } from 'grpc-health-check';
import { observeCalls, type CallObserver } from './call-observer.js';
import { adaptService, type CallLogger, type MethodDefinition, type ServiceHandlers } from './service-handlers.js';

/** One gRPC service to serve: its full name, ts-proto definition and promise handlers. */
export interface ServiceRegistration {
  /** Fully-qualified name, e.g. `atelier.catalog.v1.CatalogService`; used by health and reflection. */
  name: string;
  definition: ServiceDefinition;
  implementation: UntypedServiceImplementation;
}

/** Builds a registration while checking the handlers against the definition's types. */
export function registerService<D extends Record<string, MethodDefinition>>(
  name: string,
  definition: D,
  handlers: ServiceHandlers<D>,
  logger: CallLogger,
): ServiceRegistration {
  return {
    name,
    definition: definition as unknown as ServiceDefinition,
    implementation: adaptService(definition, handlers, logger),
  };
}

export interface GrpcServerOptions {
  host?: string;
  /** 0 picks a free port (tests); the bound port is returned. */
  port: number;
  services: readonly ServiceRegistration[];
  /** The FileDescriptorSet served by reflection (`loadDescriptorSet()` of @atelier/contracts). */
  descriptorSet: Buffer;
  logger: CallLogger;
  /** Told of every finished call (e.g. `grpcServerMetrics` of @atelier/metrics). */
  callObserver?: CallObserver;
  /** Connections are closed (gracefully) after about this long; default 5 minutes. */
  maxConnectionAgeMs?: number;
}

export interface GrpcServerHandle {
  readonly server: Server;
  readonly port: number;
  readonly health: HealthImplementation;
  /**
   * Reports NOT_SERVING, lets in-flight calls finish for up to graceMs, then cancels the rest.
   * Idempotent.
   */
  shutdown(graceMs: number): Promise<void>;
}

/**
 * Serves the given services with the standard `grpc.health.v1` health service (overall status
 * "" and one entry per service) and server reflection (v1 and v1alpha) limited to them.
 */
export async function startGrpcServer(options: GrpcServerOptions): Promise<GrpcServerHandle> {
  const server = new Server({
    'grpc.keepalive_time_ms': 30_000,
    'grpc.keepalive_timeout_ms': 10_000,
    'grpc.keepalive_permit_without_calls': 1,
    // channelz keeps a per-call trace we never read; it is a measurable share of a call's CPU.
    'grpc.enable_channelz': 0,
    // Clients balance round-robin over the addresses a headless Service resolves to, and resolve
    // again only when a connection closes: closing each connection after a few minutes (grpc-js
    // adds jitter; calls in flight get the grace to finish) lets them find pods added since.
    // Streams still open after the grace end UNAVAILABLE; the gateway reopens its WatchJob calls.
    'grpc.max_connection_age_ms': options.maxConnectionAgeMs ?? 5 * 60_000,
    'grpc.max_connection_age_grace_ms': 30_000,
  });
  for (const service of options.services) {
    const implementation = options.callObserver
      ? observeCalls(service.definition, service.implementation, options.callObserver)
      : service.implementation;
    server.addService(service.definition, implementation);
  }

  const health = new HealthImplementation(Object.fromEntries([['', 'SERVING'], ...options.services.map((s) => [s.name, 'SERVING'])]));
  health.addToServer(server);

  const packageDefinition = loadFileDescriptorSetFromBuffer(options.descriptorSet);
  new ReflectionService(packageDefinition, { services: options.services.map((s) => s.name) }).addToServer(server);

  const host = options.host ?? '0.0.0.0';
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${host}:${options.port}`, ServerCredentials.createInsecure(), (error, boundPort) =>
      error ? reject(error) : resolve(boundPort),
    );
  });

  let stopping: Promise<void> | undefined;
  const shutdown = (graceMs: number) => {
    stopping ??= new Promise<void>((resolve) => {
      health.setStatus('', 'NOT_SERVING');
      for (const service of options.services) health.setStatus(service.name, 'NOT_SERVING');
      const force = setTimeout(() => {
        options.logger.info({ graceMs }, 'grpc calls still running after the grace period: cancelling them');
        server.forceShutdown();
        resolve();
      }, graceMs);
      force.unref();
      server.tryShutdown(() => {
        clearTimeout(force);
        resolve();
      });
    });
    return stopping;
  };

  return { server, port, health, shutdown };
}
