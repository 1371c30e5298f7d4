// The chart's workloads against the code they run: every deployable service gets its objects,
// hardened pods, probes on the paths and ports of the platform description (which its code
// serves: platform-services.test.ts), peers wired to the release's Services, grace periods
// derived from its own shutdown policy, and secrets only by reference in production.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ADDRESS_VARIABLES,
  JOB_QUEUES,
  STAND_INS,
  deployableServices,
  healthPathsOf,
  jobsTopology,
  portsOf,
  shutdownPolicyOf,
} from './code-facts.js';
import { VALUE_SETS, find, get, nameOf, ofKind, repoRoot, type Manifest, useRenderedChart } from './helm.js';

const chart = useRenderedChart();
const { rendered } = chart;

const services = deployableServices();
const inProduction = services.filter((service) => !STAND_INS.includes(service));
const manifestsOf = (set: string) => rendered[set] ?? [];
const containerOf = (deployment: Manifest) => deployment.spec.template.spec.containers[0];
const configOf = (manifests: Manifest[], service: string): Record<string, string> => get(manifests, 'ConfigMap', nameOf(service)).data;
const podsOf = (manifests: Manifest[]) => [...ofKind(manifests, 'Deployment'), ...ofKind(manifests, 'Job')];

describe('chart - one set of objects per deployable service', () => {
  it.each(services)('%s: Deployment, Service, ServiceAccount, PodDisruptionBudget, ConfigMap and NetworkPolicy', (service) => {
    for (const kind of ['Deployment', 'Service', 'ServiceAccount', 'PodDisruptionBudget', 'ConfigMap', 'NetworkPolicy']) {
      expect(find(manifestsOf('default'), kind, nameOf(service)), `${kind} ${nameOf(service)}`).toBeDefined();
    }
  });

  it('deploys exactly the services that have an image', () => {
    const deployed = ofKind(manifestsOf('default'), 'Deployment').map((deployment) => deployment.metadata.name);
    expect(deployed.sort()).toEqual(services.map(nameOf).sort());
  });

  it('labels every Deployment the way atelier-ops finds a release and its workers', () => {
    // services/ops-cli/src/release-labels.ts: part-of=atelier selects the release, component the unit.
    for (const deployment of ofKind(manifestsOf('default'), 'Deployment')) {
      const component = deployment.metadata.name.slice(`${nameOf('')}`.length);
      expect(deployment.metadata.labels).toMatchObject({
        'app.kubernetes.io/part-of': 'atelier',
        'app.kubernetes.io/component': component,
      });
    }
  });

  it('leaves the stand-ins (provider-sim, pet-directory-sim) out of production entirely', () => {
    const production = manifestsOf('production');
    for (const standIn of STAND_INS) expect(production.filter((manifest) => manifest.metadata.name.includes(standIn))).toEqual([]);
    expect(
      ofKind(production, 'Deployment')
        .map((deployment) => deployment.metadata.name)
        .sort(),
    ).toEqual(inProduction.map(nameOf).sort());
    expect(configOf(production, 'worker').PROVIDER_URL).toBe('https://api.ai-vendor.example.com');
    expect(configOf(production, 'jobs')).toMatchObject({
      PET_DIRECTORY_ADDR: 'pets.app.svc.cluster.local:50051',
      PET_DIRECTORY_IDENTITY: 'pets',
    });
  });

  it('runs several replicas of each service in production', () => {
    for (const deployment of ofKind(manifestsOf('production'), 'Deployment')) {
      if (deployment.metadata.name === nameOf('worker')) continue; // its autoscaler decides
      expect(deployment.spec.replicas, deployment.metadata.name).toBeGreaterThanOrEqual(2);
    }
  });
});

describe('chart - hardened pods', () => {
  it.each(Object.keys(VALUE_SETS))('%s values: every Deployment and hook Job runs non-root, read-only, without capabilities', (set) => {
    const pods = podsOf(manifestsOf(set));
    expect(pods.length).toBeGreaterThanOrEqual(set === 'production' ? 10 : 11);
    for (const pod of pods) {
      const spec = pod.spec.template.spec;
      const where = `${pod.kind} ${pod.metadata.name}`;
      expect(spec.securityContext, where).toEqual({
        runAsNonRoot: true,
        runAsUser: 1000,
        runAsGroup: 1000,
        fsGroup: 1000,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(spec.automountServiceAccountToken, where).toBe(false);
      const tmp = spec.volumes.find((volume: Manifest) => volume.name === 'tmp');
      expect(tmp?.emptyDir, where).toBeDefined();
      for (const container of spec.containers) {
        expect(container.securityContext, where).toMatchObject({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
        expect(container.volumeMounts, where).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
        expect(container.resources?.requests?.memory, where).toBeDefined();
        expect(container.resources?.limits?.memory, where).toBeDefined();
      }
    }
  });

  it('gives no ServiceAccount a token', () => {
    for (const account of ofKind(manifestsOf('default'), 'ServiceAccount')) {
      expect(account.automountServiceAccountToken, account.metadata.name).toBe(false);
    }
  });
});

describe('chart - ports and probes follow the platform description', () => {
  it.each(services)('%s: container ports are the described ones, and its image exposes them', (service) => {
    const { main, metrics, health } = portsOf(service);
    const container = containerOf(get(manifestsOf('default'), 'Deployment', nameOf(service)));
    const ports = container.ports.map((port: Manifest) => port.containerPort);
    expect(ports).toEqual([main, metrics, health].filter((port) => port !== undefined));
    const dockerfile = readFileSync(path.join(repoRoot, 'services', service, 'Dockerfile'), 'utf8');
    expect(/^EXPOSE (.+)$/m.exec(dockerfile)?.[1]?.split(' ').map(Number)).toEqual(ports);
  });

  it.each(services)('%s: readiness, liveness and startup probes on its own health endpoint', (service) => {
    const { main, health, protocol } = portsOf(service);
    const container = containerOf(get(manifestsOf('default'), 'Deployment', nameOf(service)));
    const probes = [container.readinessProbe, container.livenessProbe, container.startupProbe];
    if (protocol === 'grpc') {
      // grpc.health.v1 with the overall service "" (libs/grpc), on the plaintext health port:
      // kubelet probes speak no TLS, and the gRPC port requires a client certificate.
      expect(health).toBeDefined();
      for (const probe of probes) expect(probe.grpc).toEqual({ port: health });
      return;
    }
    const paths = healthPathsOf(service);
    const namedPort = container.ports.find((port: Manifest) => port.name === container.readinessProbe.httpGet.port);
    expect(namedPort?.containerPort).toBe(main);
    expect(container.readinessProbe.httpGet.path).toBe(paths.readiness);
    expect(container.livenessProbe.httpGet.path).toBe(paths.liveness);
    expect(container.startupProbe.httpGet.path).toBe(paths.liveness);
  });

  it.each(services)('%s: the ConfigMap sets the listen ports the probes and Service use', (service) => {
    const { main, metrics, health, protocol } = portsOf(service);
    const config = configOf(manifestsOf('default'), service);
    expect(config[protocol === 'grpc' ? 'GRPC_PORT' : 'HTTP_PORT']).toBe(String(main));
    if (metrics) expect(config.METRICS_PORT).toBe(String(metrics));
    if (health) expect(config.GRPC_HEALTH_PORT).toBe(String(health));
    const service_ = get(manifestsOf('default'), 'Service', nameOf(service));
    expect(service_.spec.ports.map((port: Manifest) => port.port)).toEqual(metrics ? [main, metrics] : [main]);
  });

  it('annotates every pod that serves /metrics for Prometheus with the port that serves it', () => {
    for (const service of services) {
      const deployment = get(manifestsOf('default'), 'Deployment', nameOf(service));
      const annotations = deployment.spec.template.metadata.annotations;
      if (service === 'provider-sim') {
        expect(annotations['prometheus.io/scrape']).toBeUndefined();
        continue;
      }
      const { main, metrics } = portsOf(service);
      expect(annotations).toMatchObject({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(metrics ?? main) });
    }
  });
});

describe('chart - peers and secrets', () => {
  it.each(Object.keys(VALUE_SETS))('%s values: every *_ADDR names a Service of the release on that service port', (set) => {
    const manifests = manifestsOf(set);
    for (const configMap of ofKind(manifests, 'ConfigMap')) {
      for (const [variable, value] of Object.entries(configMap.data as Record<string, string>)) {
        if (!variable.endsWith('_ADDR')) continue;
        const peer = ADDRESS_VARIABLES[variable];
        if (!peer) throw new Error(`${configMap.metadata.name} ${variable}: not a peer address tools/deploy/code-facts.ts knows`);
        // A stand-in's variable names the real thing outside the release where the stand-in is off.
        if (STAND_INS.includes(peer) && !find(manifests, 'Deployment', nameOf(peer))) continue;
        expect(value, `${configMap.metadata.name} ${variable}`).toBe(`${nameOf(peer)}:${portsOf(peer).main}`);
        // Headless: the clients balance round-robin over the ready pods (libs/grpc).
        expect(get(manifests, 'Service', nameOf(peer)).spec.clusterIP).toBe('None');
      }
    }
  });

  it('points the worker at the release provider-sim in development', () => {
    expect(configOf(manifestsOf('default'), 'worker').PROVIDER_URL).toBe(
      `http://${nameOf('provider-sim')}:${portsOf('provider-sim').main}`,
    );
    expect(configOf(manifestsOf('default'), 'provider-sim').PUBLIC_URL).toBe(`http://${nameOf('provider-sim')}:8090`);
  });

  it("mounts the platform key and the credentials' KEK as Secret files, whole directories the services read again on change", () => {
    expect(configOf(manifestsOf('default'), 'worker').PROVIDER_API_KEY_FILE, 'unset: PROVIDER_API_KEY').toBeUndefined();
    expect(configOf(manifestsOf('default'), 'jobs').CREDENTIALS_KEK_FILE, "unset: no users' keys").toBeUndefined();
    const mounted = chart.helm.render({
      set: { 'provider.apiKeyFile.existingSecret': 'vendor-key', 'credentials.kek.existingSecret': 'atelier-kek' },
    });
    expect(configOf(mounted, 'worker').PROVIDER_API_KEY_FILE).toBe('/etc/atelier/provider-key/PROVIDER_API_KEY');
    expect(configOf(mounted, 'jobs').CREDENTIALS_KEK_FILE).toBe('/etc/atelier/credentials-kek/kek.json');
    for (const [component, volume, secret] of [
      ['worker', 'provider-key', 'vendor-key'],
      ['jobs', 'credentials-kek', 'atelier-kek'],
    ] as const) {
      const pod = get(mounted, 'Deployment', nameOf(component)).spec as {
        template: {
          spec: {
            volumes: { name: string; secret?: { secretName: string } }[];
            containers: { volumeMounts: { name: string; subPath?: string }[] }[];
          };
        };
      };
      expect(pod.template.spec.volumes.find((v) => v.name === volume)?.secret?.secretName).toBe(secret);
      const mount = pod.template.spec.containers[0]!.volumeMounts.find((m) => m.name === volume);
      expect(mount, `${component} mounts ${volume}`).toBeDefined();
      expect(mount!.subPath, 'a subPath mount would never see the Secret change').toBeUndefined();
    }
  });

  it('points jobs at the release pet-directory-sim in development, expecting its certificate, with the seed of the values', () => {
    expect(configOf(manifestsOf('default'), 'jobs')).toMatchObject({
      PET_DIRECTORY_ADDR: `${nameOf('pet-directory-sim')}:${portsOf('pet-directory-sim').main}`,
      PET_DIRECTORY_IDENTITY: 'pet-directory-sim',
    });
    expect(configOf(manifestsOf('default'), 'pet-directory-sim').PET_DIRECTORY_SEED, 'unset: the development pets').toBeUndefined();
    const seed = { id: '019a3c1e-7f00-7000-8000-00000000f001', ownerUserId: 'user-1', sharedWith: ['user-2'] };
    const seeded = chart.helm.render({
      set: {
        'petDirectorySim.seed[0].id': seed.id,
        'petDirectorySim.seed[0].ownerUserId': seed.ownerUserId,
        'petDirectorySim.seed[0].sharedWith[0]': 'user-2',
      },
    });
    expect(JSON.parse(configOf(seeded, 'pet-directory-sim').PET_DIRECTORY_SEED ?? '')).toEqual([seed]);
  });

  it('takes every production secret from a Secret managed outside the chart', () => {
    const production = manifestsOf('production');
    expect(ofKind(production, 'Secret')).toEqual([]);
    const references = podsOf(production).flatMap((pod) =>
      pod.spec.template.spec.containers.flatMap((container: Manifest) =>
        (container.env ?? [])
          .filter((entry: Manifest) => entry.valueFrom?.secretKeyRef)
          .map(
            (entry: Manifest) =>
              `${pod.metadata.name} ${entry.name}=${entry.valueFrom.secretKeyRef.name}/${entry.valueFrom.secretKeyRef.key}`,
          ),
      ),
    );
    expect(references.sort()).toEqual(
      [
        'atelier-catalog DATABASE_URL=atelier-database/CATALOG_DATABASE_URL',
        'atelier-catalog NATS_PASSWORD=atelier-nats/CATALOG_NATS_PASSWORD',
        'atelier-gateway NATS_PASSWORD=atelier-nats/GATEWAY_NATS_PASSWORD',
        'atelier-catalog-migrate DATABASE_URL=atelier-database/CATALOG_DATABASE_URL',
        'atelier-community DATABASE_URL=atelier-database/COMMUNITY_DATABASE_URL',
        'atelier-community NATS_PASSWORD=atelier-nats/COMMUNITY_NATS_PASSWORD',
        'atelier-community PRODUCT_EVENTS_USER_KEY=atelier-product-events/PRODUCT_EVENTS_USER_KEY',
        'atelier-community-migrate DATABASE_URL=atelier-database/COMMUNITY_DATABASE_URL',
        'atelier-jobs DATABASE_URL=atelier-database/JOBS_DATABASE_URL',
        'atelier-jobs NATS_PASSWORD=atelier-nats/JOBS_NATS_PASSWORD',
        'atelier-jobs PRODUCT_EVENTS_USER_KEY=atelier-product-events/PRODUCT_EVENTS_USER_KEY',
        'atelier-jobs-migrate DATABASE_URL=atelier-database/JOBS_DATABASE_URL',
        'atelier-media DATABASE_URL=atelier-database/MEDIA_DATABASE_URL',
        'atelier-media NATS_PASSWORD=atelier-nats/MEDIA_NATS_PASSWORD',
        'atelier-media PRODUCT_EVENTS_USER_KEY=atelier-product-events/PRODUCT_EVENTS_USER_KEY',
        'atelier-media S3_ACCESS_KEY_ID=atelier-s3/S3_ACCESS_KEY_ID',
        'atelier-media S3_SECRET_ACCESS_KEY=atelier-s3/S3_SECRET_ACCESS_KEY',
        'atelier-media-migrate DATABASE_URL=atelier-database/MEDIA_DATABASE_URL',
        'atelier-webhooks DATABASE_URL=atelier-database/WEBHOOKS_DATABASE_URL',
        'atelier-webhooks NATS_PASSWORD=atelier-nats/WEBHOOKS_NATS_PASSWORD',
        'atelier-webhooks-migrate DATABASE_URL=atelier-database/WEBHOOKS_DATABASE_URL',
        'atelier-worker NATS_PASSWORD=atelier-nats/WORKER_NATS_PASSWORD',
        'atelier-worker PROVIDER_API_KEY=atelier-provider/PROVIDER_API_KEY',
      ].sort(),
    );
    // The gateway verifies tokens against the issuer's JWKS there; no key is needed.
    expect(configOf(production, 'gateway').JWKS_URL).toBe('https://auth.example.com/.well-known/jwks.json');
  });

  it('keeps secret values out of ConfigMaps and in the chart-managed Secret of their service', () => {
    const dev = manifestsOf('dev');
    for (const configMap of ofKind(dev, 'ConfigMap')) {
      expect(Object.keys(configMap.data), configMap.metadata.name).not.toContain('DATABASE_URL');
      expect(Object.values(configMap.data).join(' '), configMap.metadata.name).not.toContain('atelier-dev@');
    }
    const mediaSecret = get(dev, 'Secret', nameOf('media'));
    expect(Object.keys(mediaSecret.data).sort()).toEqual(['DATABASE_URL', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY']);
    expect(Buffer.from(mediaSecret.data.S3_ACCESS_KEY_ID, 'base64').toString()).toBe('minioadmin');
    const env = containerOf(get(dev, 'Deployment', nameOf('media'))).env;
    expect(env).toContainEqual({ name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: nameOf('media'), key: 'DATABASE_URL' } } });
  });
});

describe('chart - NATS credentials', () => {
  const natsServices = ['catalog', 'jobs', 'media', 'community', 'worker', 'webhooks', 'gateway'];

  it('gives catalog, jobs, media, community, the workers, webhooks and the gateway the shared NATS user in their ConfigMap and its password from a Secret, and nobody else', () => {
    const manifests = chart.helm.render({ set: { 'nats.user': 'atelier', 'nats.password.existingSecret': 'atelier-nats' } });
    for (const service of natsServices) {
      expect(configOf(manifests, service).NATS_USER, service).toBe('atelier');
      expect(containerOf(get(manifests, 'Deployment', nameOf(service))).env, service).toContainEqual({
        name: 'NATS_PASSWORD',
        valueFrom: { secretKeyRef: { name: 'atelier-nats', key: 'NATS_PASSWORD' } },
      });
    }
    for (const service of STAND_INS) {
      expect(configOf(manifests, service).NATS_USER, service).toBeUndefined();
      const env = (containerOf(get(manifests, 'Deployment', nameOf(service))).env ?? []) as Manifest[];
      expect(
        env.map((entry) => entry.name),
        service,
      ).not.toContain('NATS_PASSWORD');
    }
  });

  it('gives each service its own NATS user and password in production, as the documented server config expects', () => {
    const production = manifestsOf('production');
    for (const service of natsServices) {
      expect(configOf(production, service), service).toMatchObject({ NATS_USER: `atelier-${service}`, NATS_STREAM_PREFIX: 'ATELIER' });
      expect(containerOf(get(production, 'Deployment', nameOf(service))).env, service).toContainEqual({
        name: 'NATS_PASSWORD',
        valueFrom: { secretKeyRef: { name: 'atelier-nats', key: `${service.toUpperCase()}_NATS_PASSWORD` } },
      });
    }
    const serverConfig = readFileSync(path.join(repoRoot, 'charts/atelier/nats/nats-server.conf.example'), 'utf8');
    for (const service of natsServices) expect(serverConfig).toContain(`user: atelier-${service}`);
  });

  it('points the gateway at the NATS of the release (its rate-limit bucket), and trusts the Ingress for client addresses', () => {
    const production = manifestsOf('production');
    const gateway = configOf(production, 'gateway');
    expect(gateway.NATS_URL).toBe(configOf(production, 'jobs').NATS_URL);
    expect(gateway.TRUSTED_PROXY_HOPS).toBe('1');
    expect(configOf(manifestsOf('default'), 'gateway').TRUSTED_PROXY_HOPS).toBeUndefined();
  });
});

describe('chart - NATS cluster', () => {
  const declaringStreams = ['jobs', 'media', 'community', 'worker', 'gateway'];

  it('gives the services that declare streams one replica of each by default, and catalog (core NATS only) none', () => {
    const manifests = manifestsOf('default');
    for (const service of declaringStreams) {
      expect(configOf(manifests, service), service).toMatchObject({ NATS_URL: 'nats://nats:4222', NATS_STREAM_REPLICAS: '1' });
    }
    expect(configOf(manifests, 'catalog').NATS_STREAM_REPLICAS).toBeUndefined();
  });

  it('keeps three replicas of every stream in production, on the three servers of its NATS cluster', () => {
    const production = manifestsOf('production');
    const servers = [0, 1, 2].map((node) => `nats://nats-${node}.nats-headless.nats.svc.cluster.local:4222`).join(',');
    for (const service of declaringStreams) {
      expect(configOf(production, service), service).toMatchObject({ NATS_URL: servers, NATS_STREAM_REPLICAS: '3' });
    }
    expect(configOf(production, 'catalog')).toMatchObject({ NATS_URL: servers });
    expect(configOf(production, 'catalog').NATS_STREAM_REPLICAS).toBeUndefined();
  });

  it('takes the servers as one comma-separated string too, and refuses a replica count the services would', () => {
    const manifests = chart.helm.render({ set: { 'nats.url': 'nats://a:4222\\,nats://b:4222', 'nats.streamReplicas': '5' } });
    expect(configOf(manifests, 'worker')).toMatchObject({ NATS_URL: 'nats://a:4222,nats://b:4222', NATS_STREAM_REPLICAS: '5' });
    expect(() => chart.helm.render({ set: { 'nats.streamReplicas': '7' } })).toThrow(/streamReplicas/);
  });
});

describe('chart - jobs retention', () => {
  it.each(['default', 'production'])(
    '%s values: the retention policy, with published dispatches outliving the stale-dispatch window',
    (set) => {
      const jobs = configOf(manifestsOf(set), 'jobs');
      expect(jobs.OUTBOX_RETENTION_MS).toBe('86400000');
      expect(jobs.JOB_EVENTS_RETENTION_DAYS).toBe('90');
      // services/jobs/src/config.ts refuses to start otherwise (DISPATCH_STALE_AFTER_MS defaults to 2 min).
      expect(Number(jobs.OUTBOX_RETENTION_MS)).toBeGreaterThan(Number(jobs.DISPATCH_STALE_AFTER_MS ?? 120_000));
    },
  );
});

describe('chart - jobs quota', () => {
  it.each(['default', 'production'])('%s values: a monthly allowance of at least the daily one', (set) => {
    const jobs = configOf(manifestsOf(set), 'jobs');
    // services/jobs/src/config.ts (checkQuotaLimits) refuses to start otherwise; 20 and 300 are its defaults.
    expect(Number(jobs.QUOTA_MONTHLY_LIMIT ?? 300)).toBeGreaterThanOrEqual(Number(jobs.QUOTA_DAILY_LIMIT ?? 20));
  });

  it('production values: 50 generations a day, 750 a month', () => {
    expect(configOf(manifestsOf('production'), 'jobs')).toMatchObject({ QUOTA_DAILY_LIMIT: '50', QUOTA_MONTHLY_LIMIT: '750' });
  });
});

describe('chart - shutdown outlasts the drain', () => {
  it.each(Object.keys(VALUE_SETS).flatMap((set) => services.map((service) => [set, service] as const)))(
    '%s values, %s: SIGKILL comes 5 s after the forced exit of its shutdown policy, preStop pause included',
    async (set, service) => {
      const manifests = manifestsOf(set);
      const deployment = find(manifests, 'Deployment', nameOf(service));
      if (!deployment) return; // the stand-ins are off in production
      // The process forces its exit marginMs after its drain bound (libs/lifecycle runService); the
      // pod's grace period counts the preStop pause, then that, then 5 s for SIGKILL to come after.
      const policy = await shutdownPolicyOf(service);
      const drainMs = Number(configOf(manifests, service)[policy.drainVariable]);
      expect(drainMs, `${service} ${policy.drainVariable}`).toBeGreaterThan(0);
      const preStop = Number(containerOf(deployment).lifecycle?.preStop?.exec?.command?.[1] ?? 0);
      expect(deployment.spec.template.spec.terminationGracePeriodSeconds).toBe(preStop + Math.ceil((drainMs + policy.marginMs) / 1000) + 5);
    },
  );

  it('gives the worker the drain of its values: 25 s by default, 60 s in production', () => {
    expect(configOf(manifestsOf('default'), 'worker').WORKER_DRAIN_TIMEOUT_MS).toBe('25000');
    expect(configOf(manifestsOf('production'), 'worker').WORKER_DRAIN_TIMEOUT_MS).toBe('60000');
  });
});

describe('chart - worker autoscaling', () => {
  it('scales on CPU with an HPA by default, and leaves the replica count to it', () => {
    const manifests = manifestsOf('default');
    const hpa = get(manifests, 'HorizontalPodAutoscaler', nameOf('worker'));
    expect(hpa.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: nameOf('worker') });
    expect(hpa.spec.metrics[0].resource.name).toBe('cpu');
    expect(ofKind(manifests, 'ScaledObject')).toEqual([]);
    expect(get(manifests, 'Deployment', nameOf('worker')).spec.replicas).toBeUndefined();
  });

  it('scales on the lag of every worker consumer with KEDA in production, without an HPA of its own', () => {
    const manifests = manifestsOf('production');
    expect(ofKind(manifests, 'HorizontalPodAutoscaler')).toEqual([]);
    const scaledObject = get(manifests, 'ScaledObject', nameOf('worker'));
    expect(scaledObject.spec.scaleTargetRef.name).toBe(nameOf('worker'));
    const topology = jobsTopology(configOf(manifests, 'worker').NATS_STREAM_PREFIX ?? '');
    const triggers = scaledObject.spec.triggers.map(({ metadata }: { metadata: Record<string, string> }) => [
      metadata.stream,
      metadata.consumer,
    ]);
    expect(triggers).toEqual(JOB_QUEUES.map((queue) => [topology.jobsStream, topology.consumerName(queue)]));
    expect(get(manifests, 'Deployment', nameOf('worker')).spec.replicas).toBeUndefined();
  });

  it('keeps a fixed replica count when both autoscalers are off', () => {
    const manifests = chart.helm.render({ set: { 'worker.autoscaling.hpa.enabled': 'false', 'worker.replicas': '3' } });
    expect(ofKind(manifests, 'HorizontalPodAutoscaler')).toEqual([]);
    expect(ofKind(manifests, 'ScaledObject')).toEqual([]);
    expect(get(manifests, 'Deployment', nameOf('worker')).spec.replicas).toBe(3);
  });
});
