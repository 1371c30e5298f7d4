import { Server, ServerCredentials, type ServiceDefinition, type UntypedServiceImplementation } from '@grpc/grpc-js';
import type { HealthImplementation } from 'grpc-health-check';
import { observeCalls, type CallObserver } from './call-observer.js';
import { authorizeCalls, type CallerPolicy } from './caller-authorization.js';
import { adaptService, type CallLogger, type MethodDefinition, type ServiceHandlers } from './service-handlers.js';
import { memoisePeerCertificates } from './peer-certificate-memo.js';
import { serverCredentialsOf, type GrpcSecurity } from './transport-security.js';

/** One gRPC service to serve: its full name, ts-proto definition and promise handlers. */
export interface ServiceRegistration {
  /** Fully-qualified name, e.g. `atelier.catalog.v1.CatalogService`; used by health and reflection. */
  name: string;
  definition: ServiceDefinition;
  implementation: UntypedServiceImplementation;
  /** Which caller identities may call which of its methods. */
  callers: CallerPolicy<Record<string, unknown>>;
}

/** Builds a registration while checking the handlers and the caller policy against the definition. */
export function registerService<D extends Record<string, MethodDefinition>>(
  name: string,
  definition: D,
  handlers: ServiceHandlers<D>,
  logger: CallLogger,
  callers: CallerPolicy<D>,
): ServiceRegistration {
  return {
    name,
    definition: definition as unknown as ServiceDefinition,
    implementation: adaptService(definition, handlers, logger),
    callers: callers as CallerPolicy<Record<string, unknown>>,
  };
}

export interface GrpcServerOptions {
  host?: string;
  /** 0 picks a free port (tests); the bound port is returned. */
  port: number;
  services: readonly ServiceRegistration[];
  /** Mutual TLS: the server's certificate, and the CA every caller's certificate must come from. */
  security: GrpcSecurity;
  /**
   * A plaintext port serving only `grpc.health.v1` (Kubernetes probes speak neither TLS nor
   * client certificates); 0 picks a free one. Health is also served on the main port.
   */
  healthPort: number;
  /** Serve server reflection (off by default: it tells a caller every method there is). */
  reflection?: boolean;
  /** The FileDescriptorSet served by reflection (`loadDescriptorSet()` of @atelier/contracts). */
  descriptorSet: Buffer;
  logger: CallLogger;
  /** Told of every finished call (e.g. `grpcServerMetrics` of @atelier/metrics). */
  callObserver?: CallObserver;
  /** Connections are closed (gracefully) after about this long; default 5 minutes. */
  maxConnectionAgeMs?: number;
}

/** How a service serves: the part of GrpcServerOptions its main module decides. */
export type GrpcServingOptions = Pick<GrpcServerOptions, 'host' | 'port' | 'healthPort' | 'security' | 'reflection' | 'callObserver'>;

/** The serving options a service's validated configuration (grpcServerConfigSpec) describes. */
export function servingOptionsOf(
  config: { GRPC_PORT: number; GRPC_HEALTH_PORT: number; GRPC_REFLECTION: boolean },
  security: GrpcSecurity,
): GrpcServingOptions {
  return { port: config.GRPC_PORT, healthPort: config.GRPC_HEALTH_PORT, reflection: config.GRPC_REFLECTION, security };
}

export interface GrpcServerHandle {
  readonly server: Server;
  readonly port: number;
  /** The plaintext health-only port. */
  readonly healthPort: number;
  readonly health: HealthImplementation;
  /**
   * Reports NOT_SERVING, lets in-flight calls finish for up to graceMs, then cancels the rest.
   * Idempotent.
   */
  shutdown(graceMs: number): Promise<void>;
}

/**
 * Serves the given services over mutual TLS, each call authorized by its caller's certificate
 * against the service's caller policy, with the standard `grpc.health.v1` health service (overall
 * status "" and one entry per service; open to every caller, and on a plaintext port of its own)
 * and, when asked, server reflection (v1 and v1alpha) limited to them.
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
  const trustDomain = options.security.trustDomain;
  for (const service of options.services) {
    const authorized = authorizeCalls(service.definition, service.implementation, service.callers, trustDomain, (method, caller) =>
      options.logger.info({ method, caller: caller ?? null }, 'grpc call refused: the caller may not call this method'),
    );
    const implementation = options.callObserver ? observeCalls(service.definition, authorized, options.callObserver) : authorized;
    server.addService(service.definition, implementation);
  }

  // Loaded here, not with the module: a process that only calls gRPC (the gateway, the worker)
  // never needs the health and reflection servers, nor the .proto loader reflection uses.
  const { HealthImplementation } = await import('grpc-health-check');
  const health = new HealthImplementation(Object.fromEntries([['', 'SERVING'], ...options.services.map((s) => [s.name, 'SERVING'])]));
  health.addToServer(server);
  const healthServer = new Server({ 'grpc.enable_channelz': 0 });
  health.addToServer(healthServer);

  if (options.reflection) {
    const [{ loadFileDescriptorSetFromBuffer }, { ReflectionService }] = await Promise.all([
      import('@grpc/proto-loader'),
      import('@grpc/reflection'),
    ]);
    const packageDefinition = loadFileDescriptorSetFromBuffer(options.descriptorSet);
    new ReflectionService(packageDefinition, { services: options.services.map((s) => s.name) }).addToServer(server);
  }

  const host = options.host ?? '0.0.0.0';
  const bind = (target: Server, bindPort: number, credentials: ServerCredentials) =>
    new Promise<number>((resolve, reject) => {
      target.bindAsync(`${host}:${bindPort}`, credentials, (error, boundPort) => (error ? reject(error) : resolve(boundPort)));
    });
  memoisePeerCertificates();
  const port = await bind(server, options.port, serverCredentialsOf(options.security));
  const healthPort = await bind(healthServer, options.healthPort, ServerCredentials.createInsecure()).catch((error: unknown) => {
    server.forceShutdown();
    throw error;
  });

  let stopping: Promise<void> | undefined;
  const shutdown = (graceMs: number) => {
    stopping ??= new Promise<void>((resolve) => {
      health.setStatus('', 'NOT_SERVING');
      for (const service of options.services) health.setStatus(service.name, 'NOT_SERVING');
      const force = setTimeout(() => {
        options.logger.info({ graceMs }, 'grpc calls still running after the grace period: cancelling them');
        server.forceShutdown();
        healthServer.forceShutdown();
        resolve();
      }, graceMs);
      force.unref();
      server.tryShutdown(() => {
        clearTimeout(force);
        healthServer.forceShutdown();
        resolve();
      });
    });
    return stopping;
  };

  return { server, port, healthPort, health, shutdown };
}
