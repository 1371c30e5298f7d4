// skaffold.yaml builds every service image from its Dockerfile and hands each to the chart
// value that deploys it; the dev and prod profiles render the chart they promise. Checked
// offline: the profiles' JSON patches are applied here, the image templates filled in the way
// skaffold fills them, and the chart rendered with the resulting helm flags.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { deployableServices } from './code-facts.js';
import { Helm, chartDir, ensureHelm, find, get, nameOf, ofKind, repoRoot, type Manifest, type RenderOptions } from './helm.js';

const skaffold = parse(readFileSync(path.join(repoRoot, 'skaffold.yaml'), 'utf8'));
const chartValues = parse(readFileSync(path.join(chartDir, 'values.yaml'), 'utf8')) as Record<string, Manifest>;
const services = deployableServices();

let helm: Helm;
let scratch: string;

beforeAll(() => {
  ensureHelm();
  helm = new Helm();
  scratch = mkdtempSync(path.join(tmpdir(), 'atelier-skaffold-'));
}, 180_000);

afterAll(() => {
  helm?.dispose();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** skaffold's template variable suffix for an image: / and - become _. */
const templateName = (image: string) => image.replace(/[/-]/g, '_');

/** The values blocks that deploy an image, by the image's default repository (atelier/<service>). */
function imageBlocks(): Map<string, string> {
  const blocks = new Map<string, string>();
  for (const [key, block] of Object.entries(chartValues)) {
    const repository = block?.image?.repository;
    if (typeof repository === 'string') blocks.set(repository, key);
  }
  return blocks;
}

/** Applies a profile's `add` patches (the only op used) to a copy of the config. */
function withProfile(name: string): Manifest {
  const config = structuredClone(skaffold);
  const profile = config.profiles.find((candidate: Manifest) => candidate.name === name);
  if (!profile) throw new Error(`no profile ${name}`);
  for (const patch of profile.patches) {
    if (patch.op !== 'add') throw new Error(`unexpected patch op ${patch.op}`);
    const keys = patch.path.split('/').slice(1);
    const last = keys.pop();
    let node = config;
    for (const key of keys) node = node[key] ??= {};
    node[last] = patch.value;
  }
  return config;
}

/** The helm flags skaffold would pass for the first release, images named as pushed to `registry`. */
function helmOptionsOf(config: Manifest, registry: string, tag: string): RenderOptions {
  const release = config.deploy.helm.releases[0];
  const fill = (template: string) =>
    template.replace(/\{\{\.IMAGE_(REPO|TAG)_(\w+)\}\}/g, (_match, part: string, image: string) => {
      const artifact = config.build.artifacts.find((candidate: Manifest) => templateName(candidate.image) === image);
      if (!artifact) throw new Error(`template names no artifact: ${image}`);
      return part === 'REPO' ? `${registry}/${artifact.image}` : tag;
    });
  const set: Record<string, string> = {};
  for (const [key, value] of Object.entries(release.setValues ?? {})) set[key] = String(value);
  for (const [key, value] of Object.entries(release.setValueTemplates ?? {})) set[key] = fill(String(value));
  // The development key lives under .data/, which a fresh clone lacks; any PEM stands in for it.
  const setFile: Record<string, string> = {};
  for (const key of Object.keys(release.setFiles ?? {})) {
    const stand_in = path.join(scratch, `${key}.pem`);
    writeFileSync(stand_in, '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA\n-----END PUBLIC KEY-----\n');
    setFile[key] = stand_in;
  }
  return { valuesFiles: (release.valuesFiles ?? []).map((file: string) => path.join(repoRoot, file)), set, setFile };
}

describe('skaffold - build', () => {
  it('is a skaffold v4 config', () => {
    expect(skaffold.apiVersion).toMatch(/^skaffold\/v4beta\d+$/);
    expect(skaffold.kind).toBe('Config');
  });

  it('builds one image per deployable service, from the repository root, with its Dockerfile', () => {
    const artifacts = skaffold.build.artifacts as Manifest[];
    expect(artifacts.map((artifact) => artifact.image).sort()).toEqual(services.map((service) => `atelier/${service}`).sort());
    for (const artifact of artifacts) {
      const service = artifact.image.replace('atelier/', '');
      expect(artifact.context).toBe('.');
      expect(artifact.docker.dockerfile).toBe(`services/${service}/Dockerfile`);
      expect(existsSync(path.join(repoRoot, artifact.docker.dockerfile)), artifact.docker.dockerfile).toBe(true);
    }
  });

  it('builds with BuildKit, which the Dockerfiles cache mounts need', () => {
    expect(skaffold.build.local.useBuildkit).toBe(true);
  });
});

describe('skaffold - deploy', () => {
  it('deploys charts/atelier and wires every image value of the chart to its artifact', () => {
    const release = skaffold.deploy.helm.releases[0];
    expect(release.chartPath).toBe('charts/atelier');
    expect(existsSync(path.join(repoRoot, release.chartPath, 'Chart.yaml'))).toBe(true);
    const blocks = imageBlocks();
    expect([...blocks.keys()].sort()).toEqual(skaffold.build.artifacts.map((artifact: Manifest) => artifact.image).sort());
    const wired: Record<string, string> = {};
    for (const [image, block] of blocks) {
      wired[`${block}.image.repository`] = `{{.IMAGE_REPO_${templateName(image)}}}`;
      wired[`${block}.image.tag`] = `{{.IMAGE_TAG_${templateName(image)}}}`;
    }
    expect(release.setValueTemplates).toEqual(wired);
  });

  it.each(['dev', 'prod'])('the %s profile deploys every Deployment with the image skaffold built for it', (profile) => {
    const manifests = helm.render(helmOptionsOf(withProfile(profile), 'registry.test:5000', 'abc1234'));
    for (const deployment of ofKind(manifests, 'Deployment')) {
      const service = deployment.metadata.labels?.['app.kubernetes.io/component'];
      expect(deployment.spec.template.spec.containers[0].image).toBe(`registry.test:5000/atelier/${service}:abc1234`);
    }
  });

  it('the dev profile keeps images local and runs one pod of everything, the stand-ins included', () => {
    const config = withProfile('dev');
    expect(config.build.local.push).toBe(false);
    const manifests = helm.render(helmOptionsOf(config, 'atelier.local', 'dev'));
    expect(find(manifests, 'Deployment', nameOf('provider-sim'))).toBeDefined();
    expect(find(manifests, 'Deployment', nameOf('pet-directory-sim'))).toBeDefined();
    expect(ofKind(manifests, 'HorizontalPodAutoscaler')).toEqual([]);
    for (const deployment of ofKind(manifests, 'Deployment')) expect(deployment.spec.replicas, deployment.metadata.name).toBe(1);
    // The development signing key reaches the gateway.
    expect(Object.keys(get(manifests, 'Secret', nameOf('gateway')).data)).toEqual(['JWT_PUBLIC_KEY']);
  });

  it('the prod profile pushes and deploys the production values without the stand-ins', () => {
    const config = withProfile('prod');
    expect(config.build.local.push).toBe(true);
    const manifests = helm.render(helmOptionsOf(config, 'registry.test', 'v1'));
    expect(manifests.filter((manifest) => manifest.metadata.name.includes('provider-sim'))).toEqual([]);
    expect(manifests.filter((manifest) => manifest.metadata.name.includes('pet-directory-sim'))).toEqual([]);
    expect(find(manifests, 'ScaledObject', nameOf('worker'))).toBeDefined();
  });
});
