// `helm lint` and the Kubernetes API models over everything the chart renders, for the default
// (development) values and each ci/ values file.
import { describe, expect, it } from 'vitest';
import { RELEASE, VALUE_SETS, chartDir, productionValues, useRenderedChart } from './helm.js';
import { validateManifest } from './kube-models.js';

const chart = useRenderedChart();
const { rendered } = chart;

describe('chart - lint and API validation', () => {
  it.each(Object.keys(VALUE_SETS))('passes helm lint --strict with the %s values', (name) => {
    const files = VALUE_SETS[name as keyof typeof VALUE_SETS].valuesFiles ?? [];
    const result = chart.helm.run(['lint', '--strict', chartDir, ...files.flatMap((file) => ['--values', file])]);
    expect(result.stderr + result.stdout).toContain('0 chart(s) failed');
    expect(result.status).toBe(0);
  });

  it.each(Object.keys(VALUE_SETS))('renders only objects valid against the Kubernetes API models with the %s values', (name) => {
    const manifests = rendered[name] ?? [];
    expect(manifests.length).toBeGreaterThan(30);
    expect(manifests.flatMap(validateManifest)).toEqual([]);
  });

  it.each([
    ['default', [], /port-forward service\/atelier-gateway 8080:8080/],
    ['production', ['--values', productionValues], /https:\/\/api\.atelier\.example\.com\/api\/v1/],
  ])('prints NOTES that say where the API is with the %s values', (_set, values, where) => {
    const result = chart.helm.run(['install', RELEASE, chartDir, '--dry-run=client', ...values]);
    expect(result.stderr).toBe('');
    expect(result.stdout.slice(result.stdout.indexOf('NOTES:'))).toMatch(where);
  });

  it('catches what the models exist to catch: a wrong type and a missing required field', () => {
    const deployment = rendered.default?.find((manifest) => manifest.kind === 'Deployment');
    if (!deployment) throw new Error('no Deployment rendered');
    const wrongType = structuredClone(deployment);
    wrongType.spec.template.spec.containers[0].ports[0].containerPort = '8080';
    expect(validateManifest(wrongType).join()).toMatch(/containerPort must be integer/);
    const unnamed = structuredClone(deployment);
    delete unnamed.spec.template.spec.containers[0].name;
    expect(validateManifest(unnamed).join()).toMatch(/containers\/0 must have required property name/);
  });

  it('checks the KEDA ScaledObject, which has no API model, against what its scaler reads', () => {
    const scaledObject = rendered.production?.find((manifest) => manifest.kind === 'ScaledObject');
    if (!scaledObject) throw new Error('no ScaledObject rendered with the production values');
    expect(validateManifest(scaledObject)).toEqual([]);
    const broken = structuredClone(scaledObject);
    broken.spec.triggers[0].metadata.lagThreshold = 8;
    delete broken.spec.triggers[1].metadata.stream;
    expect(validateManifest(broken)).toEqual([
      expect.stringMatching(/triggers\[0\]\.metadata\.lagThreshold must be a string/),
      expect.stringMatching(/triggers\[1\]\.metadata\.stream is required/),
    ]);
  });
});
