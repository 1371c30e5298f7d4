// What the chart must agree with, read from the code rather than restated in the tests: the
// platform's description of its services (@atelier/platform: ports, probes, schemas), the peer
// wiring and shutdown policies of the services (their config.ts) and the JetStream names
// (@atelier/nats). platform-services.test.ts holds the description to the services' own code.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { ShutdownPolicy } from '@atelier/lifecycle';
import { JOB_QUEUES, jobsTopology } from '@atelier/nats';
import { PLATFORM_SERVICES, platformService } from '@atelier/platform';
import { deployableServices, servicePorts } from '../../scripts/gen-dockerfiles.mjs';
import { repoRoot } from './helm.js';

export { deployableServices, servicePorts };
export { JOB_QUEUES, jobsTopology };
export { PLATFORM_SERVICES, platformService };

/** The gRPC peer each address variable points at (CATALOG_ADDR → catalog). */
export const ADDRESS_VARIABLES: Readonly<Record<string, string>> = {
  CATALOG_ADDR: 'catalog',
  MEDIA_ADDR: 'media',
  JOBS_ADDR: 'jobs',
  COMMUNITY_ADDR: 'community',
  WEBHOOKS_ADDR: 'webhooks',
  // The app's pet service; pet-directory-sim inside the release.
  PET_DIRECTORY_ADDR: 'pet-directory-sim',
  // The AI vendor; provider-sim inside the release.
  PROVIDER_URL: 'provider-sim',
};

/** Development stand-ins for what lies outside Atelier (the AI vendor, the app's pet service): off in production. */
export const STAND_INS: readonly string[] = ['provider-sim', 'pet-directory-sim'];

/**
 * Who calls whom, from the variables each service's config.ts declares: callee → sorted callers.
 * This is the matrix the NetworkPolicies must open, no more.
 */
export function callersByService(): Map<string, string[]> {
  const callers = new Map<string, string[]>();
  for (const service of deployableServices()) {
    const source = readFileSync(path.join(repoRoot, 'services', service, 'src', 'config.ts'), 'utf8');
    for (const [variable, callee] of Object.entries(ADDRESS_VARIABLES)) {
      if (!new RegExp(`\\b${variable}:`).test(source)) continue;
      callers.set(callee, [...(callers.get(callee) ?? []), service].sort());
    }
  }
  return callers;
}

/** A service's ports in the platform description: its own, and for gRPC services METRICS_PORT and GRPC_HEALTH_PORT. */
export function portsOf(service: string): { main: number; metrics?: number; health?: number; protocol: 'grpc' | 'http' } {
  const described = platformService(service);
  return described.protocol === 'grpc'
    ? { main: described.port, metrics: described.metricsPort, health: described.healthPort, protocol: 'grpc' }
    : { main: described.port, protocol: 'http' };
}

/** The HTTP probe paths of an HTTP service, in the platform description. */
export function healthPathsOf(service: string): { readiness: string; liveness: string } {
  const described = platformService(service);
  if (described.protocol !== 'http') throw new Error(`${service} is probed over gRPC, not HTTP`);
  return { readiness: described.readinessPath, liveness: described.livenessPath };
}

/**
 * The ports a service listens on by default, from its src/config.ts (`GRPC_PORT: port(50051)`):
 * GRPC_PORT or HTTP_PORT and, for gRPC services, METRICS_PORT and GRPC_HEALTH_PORT.
 */
export function configPortsOf(service: string): { main?: number; metrics?: number; health?: number } {
  const ports = new Map(servicePorts(service).map(({ variable, port }) => [variable, port]));
  return {
    main: ports.get('GRPC_PORT') ?? ports.get('HTTP_PORT'),
    metrics: ports.get('METRICS_PORT'),
    health: ports.get('GRPC_HEALTH_PORT'),
  };
}

/** Whether a service's non-test sources name a route (`'/readyz'`). */
export function servesRoute(service: string, route: string): boolean {
  const sources = readdirSync(path.join(repoRoot, 'services', service, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .map((file) => readFileSync(path.join(repoRoot, 'services', service, 'src', file), 'utf8'));
  return sources.some((source) => source.includes(`'${route}'`));
}

/**
 * Where a service reaches its peers when nothing is set: the default of each peer address variable
 * its config.ts declares (CATALOG_ADDR → `127.0.0.1:50051`, PROVIDER_URL → `http://127.0.0.1:8090`), by variable.
 */
export async function peerAddressDefaultsOf(service: string): Promise<Record<string, string>> {
  const config = (await import(path.join(repoRoot, 'services', service, 'src', 'config.ts'))) as Record<string, unknown>;
  const specs = Object.entries(config).find(([name]) => name.endsWith('ConfigSpec'))?.[1] as
    Record<string, { parse(raw: string | undefined): unknown }> | undefined;
  if (!specs) throw new Error(`services/${service}/src/config.ts exports no …ConfigSpec`);
  return Object.fromEntries(
    Object.keys(ADDRESS_VARIABLES)
      .filter((variable) => specs[variable] !== undefined)
      .map((variable) => [variable, String(specs[variable]!.parse(undefined))]),
  );
}

/** When a service's process forces its exit after SIGTERM: the shutdownPolicy of its config.ts. */
export async function shutdownPolicyOf(service: string): Promise<ShutdownPolicy> {
  const config = (await import(path.join(repoRoot, 'services', service, 'src', 'config.ts'))) as { shutdownPolicy?: ShutdownPolicy };
  if (!config.shutdownPolicy) throw new Error(`services/${service}/src/config.ts exports no shutdownPolicy`);
  return config.shutdownPolicy;
}
