/**
 * The platform's services as the tools that start them see them: `npm start` (scripts/platform.ts),
 * the test kit (libs/testing) and the Helm chart. Each service's own config.ts defaults to the
 * same ports, and reaches its peers by default at the addresses this gives (defaultAddressOf); the
 * chart sets them; tools/deploy/platform-services.test.ts holds the three equal.
 */

interface ServiceBase {
  /** Its folder (services/<name>), its log and certificate name, the chart's component. */
  readonly name: string;
  /** GRPC_PORT (mutual TLS) or HTTP_PORT: the port its Kubernetes Service exposes. */
  readonly port: number;
  /** It calls or serves gRPC over mutual TLS, as the identity spiffe://<trust domain>/svc/<name>. */
  readonly mtls: boolean;
}

/** A gRPC service: mutual TLS on `port`, health and metrics on ports of their own. */
export interface GrpcPlatformService extends ServiceBase {
  readonly protocol: 'grpc';
  /** GRPC_HEALTH_PORT: plaintext grpc.health.v1 only, what probes and launchers ask (they hold no certificate). */
  readonly healthPort: number;
  /** METRICS_PORT in its own pod (Prometheus `GET /metrics`). */
  readonly metricsPort: number;
  /** METRICS_PORT under `npm start`, where every service shares one host (9464 is the worker's). */
  readonly localMetricsPort: number;
  /** The Postgres schema it owns; services/<name>/src/db/migrate-cli.ts migrates it before the service starts. */
  readonly schema?: string;
}

/** An HTTP service: probes, and /metrics when it has any, on `port`. */
export interface HttpPlatformService extends ServiceBase {
  readonly protocol: 'http';
  /** Answers 200 once the service can take traffic (its peers reached). */
  readonly readinessPath: string;
  /** Answers 200 while the process runs. */
  readonly livenessPath: string;
}

export type PlatformService = GrpcPlatformService | HttpPlatformService;

/** In start order: each service's peers come before it (media's calls to jobs wait until jobs serves). */
export const PLATFORM_SERVICES: readonly PlatformService[] = [
  {
    name: 'catalog',
    protocol: 'grpc',
    port: 50051,
    healthPort: 50151,
    metricsPort: 9464,
    localMetricsPort: 9471,
    schema: 'catalog',
    mtls: true,
  },
  {
    name: 'media',
    protocol: 'grpc',
    port: 50052,
    healthPort: 50152,
    metricsPort: 9464,
    localMetricsPort: 9472,
    schema: 'media',
    mtls: true,
  },
  // A stand-in for the app's pet service (atelier.pets.v1): jobs asks it whether a job's pet is the user's to tag.
  {
    name: 'pet-directory-sim',
    protocol: 'grpc',
    port: 50056,
    healthPort: 50156,
    metricsPort: 9464,
    localMetricsPort: 9476,
    mtls: true,
  },
  { name: 'jobs', protocol: 'grpc', port: 50053, healthPort: 50153, metricsPort: 9464, localMetricsPort: 9473, schema: 'jobs', mtls: true },
  {
    name: 'community',
    protocol: 'grpc',
    port: 50054,
    healthPort: 50154,
    metricsPort: 9464,
    localMetricsPort: 9474,
    schema: 'community',
    mtls: true,
  },
  // Integrators' callbacks: reads the lifecycle events, asks jobs whose job each is.
  {
    name: 'webhooks',
    protocol: 'grpc',
    port: 50055,
    healthPort: 50155,
    metricsPort: 9464,
    localMetricsPort: 9475,
    schema: 'webhooks',
    mtls: true,
  },
  // The simulated AI vendor: plain HTTP, as the real vendor's API is.
  { name: 'provider-sim', protocol: 'http', port: 8090, readinessPath: '/healthz', livenessPath: '/healthz', mtls: false },
  { name: 'worker', protocol: 'http', port: 9464, readinessPath: '/readyz', livenessPath: '/healthz', mtls: true },
  { name: 'gateway', protocol: 'http', port: 8080, readinessPath: '/readyz', livenessPath: '/healthz', mtls: true },
];

/** The service of that name; throws for a name the platform does not have. */
export function platformService(name: string): PlatformService {
  const service = PLATFORM_SERVICES.find((candidate) => candidate.name === name);
  if (!service) throw new Error(`"${name}" is not a service of the platform (${PLATFORM_SERVICES.map((s) => s.name).join(', ')})`);
  return service;
}

/**
 * Where a service is reached when nothing says otherwise: its port on this host, as `npm start`
 * runs every service (`127.0.0.1:50051` for catalog). The default of each peer address variable
 * (CATALOG_ADDR …) of the services' config.ts; the chart sets the in-cluster ones.
 */
export function defaultAddressOf(name: string): string {
  return `127.0.0.1:${platformService(name).port}`;
}

/** The variable that sets where a service serves. */
export function portVariableOf(service: PlatformService): 'GRPC_PORT' | 'HTTP_PORT' {
  return service.protocol === 'grpc' ? 'GRPC_PORT' : 'HTTP_PORT';
}

/** Its process's entry point, relative to the repository root (run with tsx; `dist/main.js` once built). */
export function entryPointOf(service: PlatformService): string {
  return `services/${service.name}/src/main.ts`;
}

/** The entry point of its migrations (relative to the repository root), when it owns a schema. */
export function migrationEntryPointOf(service: PlatformService): string | undefined {
  return service.protocol === 'grpc' && service.schema ? `services/${service.name}/src/db/migrate-cli.ts` : undefined;
}

/** Every identity with a certificate of the platform's CA: the services that speak mutual TLS, and `ops` (the operator CLI). */
export const PLATFORM_IDENTITIES: readonly string[] = [...PLATFORM_SERVICES.filter((service) => service.mtls).map((s) => s.name), 'ops'];
