// The platform description (@atelier/platform), which `npm start`, the test kit and the chart's
// tests start and check the services by, against the services' own code: the ports their config.ts
// defaults to, the probe paths their sources serve, the schema they migrate, whether they speak
// mutual TLS; and against the chart's lists of components with certificates and migrations.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PLATFORM_IDENTITIES, migrationEntryPointOf } from '@atelier/platform';
import {
  ADDRESS_VARIABLES,
  PLATFORM_SERVICES,
  configPortsOf,
  deployableServices,
  peerAddressDefaultsOf,
  platformService,
  servesRoute,
} from './code-facts.js';
import { nameOf, ofKind, repoRoot, useRenderedChart } from './helm.js';

const chart = useRenderedChart();
const names = PLATFORM_SERVICES.map((service) => service.name);
const source = (file: string) => readFileSync(path.join(repoRoot, file), 'utf8');

describe('platform description - the services', () => {
  it('describes every deployable service once, and nothing else', () => {
    expect([...names].sort()).toEqual(deployableServices());
  });

  it('gives every service ports of its own, as npm start runs them all on one host', () => {
    const ports = PLATFORM_SERVICES.flatMap((service) =>
      service.protocol === 'grpc' ? [service.port, service.healthPort, service.localMetricsPort] : [service.port],
    );
    expect(new Set(ports).size).toBe(ports.length);
  });
});

describe('platform description - the code agrees', () => {
  it.each(names)('%s: its config.ts listens by default on the described ports', (name) => {
    const service = platformService(name);
    expect(configPortsOf(name)).toEqual(
      service.protocol === 'grpc'
        ? { main: service.port, metrics: service.metricsPort, health: service.healthPort }
        : { main: service.port, metrics: undefined, health: undefined },
    );
  });

  it.each(names)(
    '%s: its config.ts reaches each peer by default at the described port on this host, as npm start runs them',
    async (name) => {
      const defaults = await peerAddressDefaultsOf(name);
      const expected = Object.fromEntries(
        Object.keys(defaults).map((variable) => {
          const peer = platformService(ADDRESS_VARIABLES[variable]!);
          const address = `127.0.0.1:${peer.port}`;
          return [variable, peer.protocol === 'http' ? `http://${address}` : address];
        }),
      );
      expect(defaults).toEqual(expected);
    },
  );

  it.each(names)('%s: its sources serve the described probes (HTTP) and its config reads the described certificate', (name) => {
    const service = platformService(name);
    if (service.protocol === 'http') {
      expect(servesRoute(name, service.readinessPath), service.readinessPath).toBe(true);
      expect(servesRoute(name, service.livenessPath), service.livenessPath).toBe(true);
    }
    expect(source(`services/${name}/src/config.ts`).includes('...grpcSecurityConfigSpec'), 'GRPC_TLS_* in its config').toBe(service.mtls);
  });

  it.each(names)('%s: migrates the described schema, or has no migrations', (name) => {
    const service = platformService(name);
    const schema = service.protocol === 'grpc' ? service.schema : undefined;
    expect(existsSync(path.join(repoRoot, 'services', name, 'src', 'db', 'migrate-cli.ts'))).toBe(schema !== undefined);
    expect(migrationEntryPointOf(service) !== undefined).toBe(schema !== undefined);
    if (schema) expect(/_SCHEMA = '([a-z_]+)'/.exec(source(`services/${name}/src/db/migrations/index.ts`))?.[1]).toBe(schema);
  });

  it('makes a certificate for every identity: the services that speak mutual TLS, and ops', () => {
    expect(PLATFORM_IDENTITIES).toEqual([...PLATFORM_SERVICES.filter((service) => service.mtls).map((service) => service.name), 'ops']);
  });
});

describe('platform description - the chart agrees', () => {
  it('issues a certificate to exactly the services that speak mutual TLS', () => {
    const certificates = ofKind(chart.rendered.default ?? [], 'Certificate').map((certificate) => certificate.metadata.name);
    const issued = names.filter((name) => certificates.includes(nameOf(name)));
    expect(issued).toEqual(PLATFORM_SERVICES.filter((service) => service.mtls).map((service) => service.name));
  });

  it('runs a migration Job for exactly the services that own a schema', () => {
    const jobs = ofKind(chart.rendered.default ?? [], 'Job').map((job) => job.metadata.name);
    const owners = PLATFORM_SERVICES.filter((service) => service.protocol === 'grpc' && service.schema).map((service) => service.name);
    expect(jobs.sort()).toEqual(owners.map((name) => nameOf(`${name}-migrate`)).sort());
  });
});
