// What the chart must agree with, read from the code rather than restated in the tests: the
// services' listen ports and peer wiring (their config.ts) and the JetStream names (@atelier/nats).
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { JOB_QUEUES, jobsTopology } from '@atelier/nats';
import { deployableServices, servicePorts } from '../../scripts/gen-dockerfiles.mjs';
import { repoRoot } from './helm.js';

export { deployableServices, servicePorts };
export { JOB_QUEUES, jobsTopology };

/** The gRPC peer each address variable points at (CATALOG_ADDR → catalog). */
const ADDRESS_VARIABLES: Record<string, string> = {
  CATALOG_ADDR: 'catalog',
  MEDIA_ADDR: 'media',
  JOBS_ADDR: 'jobs',
  COMMUNITY_ADDR: 'community',
  // The AI vendor; provider-sim inside the release.
  PROVIDER_URL: 'provider-sim',
};

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

/**
 * A service's own port (GRPC_PORT or HTTP_PORT default) and, for gRPC services, METRICS_PORT and
 * GRPC_HEALTH_PORT (plaintext health for the probes; the main port is mutual TLS).
 */
export function portsOf(service: string): { main: number; metrics?: number; health?: number; protocol: 'grpc' | 'http' } {
  const ports = servicePorts(service);
  const grpc = ports.find((port) => port.variable === 'GRPC_PORT');
  const http = ports.find((port) => port.variable === 'HTTP_PORT');
  const metrics = ports.find((port) => port.variable === 'METRICS_PORT');
  const health = ports.find((port) => port.variable === 'GRPC_HEALTH_PORT');
  const main = grpc ?? http;
  if (!main) throw new Error(`services/${service} declares neither GRPC_PORT nor HTTP_PORT`);
  return { main: main.port, metrics: metrics?.port, health: health?.port, protocol: grpc ? 'grpc' : 'http' };
}

/** The HTTP probe paths a service serves (its non-test sources name them), for HTTP services. */
export function healthPathsOf(service: string): { readiness: string; liveness: string } {
  const sources = readdirSync(path.join(repoRoot, 'services', service, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .map((file) => readFileSync(path.join(repoRoot, 'services', service, 'src', file), 'utf8'))
    .join('\n');
  const serves = (route: string) => sources.includes(`'${route}'`);
  if (!serves('/healthz')) throw new Error(`services/${service} serves no /healthz`);
  return { liveness: '/healthz', readiness: serves('/readyz') ? '/readyz' : '/healthz' };
}
