// Migrations run as Helm hook Jobs before install and upgrade, one per service with a schema, with
// that service's image; whatever they need exists before them.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { deployableServices } from './code-facts.js';
import { get, nameOf, ofKind, repoRoot, type Manifest, useRenderedChart } from './helm.js';

const chart = useRenderedChart();
const { rendered } = chart;

/** The services whose bundle has a migrate.js (scripts/build.mjs builds one from src/db/migrate-cli.ts). */
const withMigrations = deployableServices().filter((service) =>
  existsSync(path.join(repoRoot, 'services', service, 'src', 'db', 'migrate-cli.ts')),
);
const HOOK_EVENTS = 'pre-install,pre-upgrade';
const weightOf = (manifest: Manifest) => Number(manifest.metadata.annotations?.['helm.sh/hook-weight'] ?? 0);
const isHook = (manifest: Manifest) => manifest.metadata.annotations?.['helm.sh/hook'] === HOOK_EVENTS;

describe('chart - migration hook Jobs', () => {
  it('has one Job per service that owns a schema, and no other', () => {
    expect(withMigrations.sort()).toEqual(['catalog', 'community', 'jobs', 'media', 'webhooks']);
    const jobs = ofKind(rendered.default ?? [], 'Job').map((job) => job.metadata.name);
    expect(jobs.sort()).toEqual(withMigrations.map((service) => nameOf(`${service}-migrate`)).sort());
  });

  it.each(withMigrations)('%s: runs dist/migrate.js of the service image before install and upgrade', (service) => {
    for (const manifests of Object.values(rendered)) {
      const job = get(manifests, 'Job', nameOf(`${service}-migrate`));
      expect(job.metadata.annotations).toMatchObject({
        'helm.sh/hook': HOOK_EVENTS,
        'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
      });
      const container = job.spec.template.spec.containers[0];
      expect(container.command).toEqual(['node', 'dist/migrate.js']);
      const deployment = get(manifests, 'Deployment', nameOf(service));
      expect(container.image).toBe(deployment.spec.template.spec.containers[0].image);
      expect(job.spec.template.spec.restartPolicy).toBe('Never');
      expect(job.spec.backoffLimit).toBeGreaterThanOrEqual(0);
    }
  });

  it('creates the hook ServiceAccount before the Jobs, since the release objects do not exist yet', () => {
    for (const manifests of Object.values(rendered)) {
      for (const job of ofKind(manifests, 'Job')) {
        const account = get(manifests, 'ServiceAccount', job.spec.template.spec.serviceAccountName);
        expect(isHook(account), account.metadata.name).toBe(true);
        expect(weightOf(account)).toBeLessThan(weightOf(job));
        expect(account.automountServiceAccountToken).toBe(false);
      }
    }
  });

  it('reads DATABASE_URL from a hook Secret created before the Jobs when the URL is a value', () => {
    const dev = rendered.dev ?? [];
    for (const service of withMigrations) {
      const job = get(dev, 'Job', nameOf(`${service}-migrate`));
      const entry = job.spec.template.spec.containers[0].env.find((item: Manifest) => item.name === 'DATABASE_URL');
      const secret = get(dev, 'Secret', entry.valueFrom.secretKeyRef.name);
      expect(isHook(secret), secret.metadata.name).toBe(true);
      expect(weightOf(secret)).toBeLessThan(weightOf(job));
      const url = Buffer.from(secret.data[entry.valueFrom.secretKeyRef.key], 'base64').toString();
      expect(url).toBe('postgres://postgres:atelier-dev@postgres:5432/atelier');
    }
  });

  it('reads DATABASE_URL straight from the existing Secret in production, with no hook Secret', () => {
    const production = rendered.production ?? [];
    expect(ofKind(production, 'Secret')).toEqual([]);
    for (const service of withMigrations) {
      const job = get(production, 'Job', nameOf(`${service}-migrate`));
      const entry = job.spec.template.spec.containers[0].env.find((item: Manifest) => item.name === 'DATABASE_URL');
      expect(entry.valueFrom.secretKeyRef).toEqual({ name: 'atelier-database', key: `${service.toUpperCase()}_DATABASE_URL` });
    }
  });

  it('renders no Job when migrations are turned off', () => {
    const manifests = chart.helm.render({ set: { 'migrations.enabled': 'false' } });
    expect(ofKind(manifests, 'Job')).toEqual([]);
    expect(manifests.filter(isHook)).toEqual([]);
  });
});
