// Mutual TLS in the chart: every component that speaks gRPC mounts a certificate proving its
// identity (cert-manager Certificates by default, or Secrets of yours), and the chart refuses to
// render a release whose services would have none.
import { describe, expect, it } from 'vitest';
import { get, nameOf, ofKind, useRenderedChart, type Manifest } from './helm.js';

const chart = useRenderedChart();
const GRPC_COMPONENTS = ['catalog', 'media', 'jobs', 'community', 'webhooks', 'gateway', 'worker', 'pet-directory-sim'];
const containerOf = (manifests: Manifest[], component: string) =>
  get(manifests, 'Deployment', nameOf(component)).spec.template.spec.containers[0];
const tlsSecretOf = (manifests: Manifest[], component: string) =>
  get(manifests, 'Deployment', nameOf(component)).spec.template.spec.volumes.find((volume: Manifest) => volume.name === 'tls')?.secret
    ?.secretName;

describe('chart - mutual TLS between the services', () => {
  it.each(['default', 'dev', 'production'])(
    '%s values: each gRPC component mounts its own certificate and points GRPC_TLS_* at it',
    (set) => {
      const manifests = chart.rendered[set] ?? [];
      for (const component of GRPC_COMPONENTS) {
        // pet-directory-sim (development only) is not deployed in production: the app's pet service is asked.
        if (set === 'production' && component === 'pet-directory-sim') {
          expect(ofKind(manifests, 'Certificate').map((certificate) => certificate.metadata.name)).not.toContain(nameOf(component));
          continue;
        }
        const container = containerOf(manifests, component);
        expect(container.volumeMounts, component).toContainEqual({ name: 'tls', mountPath: '/etc/atelier/tls', readOnly: true });
        expect(get(manifests, 'ConfigMap', nameOf(component)).data, component).toMatchObject({
          GRPC_TLS_CA_FILE: '/etc/atelier/tls/ca.crt',
          GRPC_TLS_CERT_FILE: '/etc/atelier/tls/tls.crt',
          GRPC_TLS_KEY_FILE: '/etc/atelier/tls/tls.key',
        });
        const certificate = get(manifests, 'Certificate', nameOf(component));
        expect(certificate.spec.secretName).toBe(tlsSecretOf(manifests, component));
        const trustDomain = set === 'production' ? 'atelier.prod' : 'atelier.local';
        expect(certificate.spec.uris).toEqual([`spiffe://${trustDomain}/svc/${component}`]);
        expect(certificate.spec.usages).toEqual(expect.arrayContaining(['server auth', 'client auth']));
      }
      // provider-sim (development only) speaks HTTP to the worker: no certificate.
      if (set !== 'production') expect(tlsSecretOf(manifests, 'provider-sim')).toBeUndefined();
    },
  );

  it('bootstraps a CA for the release when no issuer is named, and uses yours when one is', () => {
    const bootstrapped = chart.rendered.default ?? [];
    expect(get(bootstrapped, 'Issuer', `${nameOf('selfsigned')}`).spec).toEqual({ selfSigned: {} });
    expect(get(bootstrapped, 'Certificate', nameOf('ca')).spec).toMatchObject({ isCA: true, secretName: nameOf('ca') });
    expect(get(bootstrapped, 'Issuer', nameOf('ca')).spec).toEqual({ ca: { secretName: nameOf('ca') } });
    expect(get(bootstrapped, 'Certificate', nameOf('jobs')).spec.issuerRef).toEqual({
      name: nameOf('ca'),
      kind: 'Issuer',
      group: 'cert-manager.io',
    });

    const production = chart.rendered.production ?? [];
    expect(ofKind(production, 'Issuer')).toEqual([]);
    expect(get(production, 'Certificate', nameOf('jobs')).spec.issuerRef).toEqual({
      name: 'atelier-internal-ca',
      kind: 'ClusterIssuer',
      group: 'cert-manager.io',
    });
  });

  it('issues the operator CLI a certificate of its own only when asked', () => {
    expect((chart.rendered.default ?? []).some((m) => m.kind === 'Certificate' && m.metadata.name === nameOf('ops'))).toBe(false);
    expect(get(chart.rendered.dev ?? [], 'Certificate', nameOf('ops')).spec.uris).toEqual(['spiffe://atelier.local/svc/ops']);
  });

  it('takes your Secrets instead, and issues nothing then', () => {
    const set = Object.fromEntries([
      ['mtls.certManager.enabled', 'false'],
      ...GRPC_COMPONENTS.map((component) => [`mtls.existingSecrets.${component}`, `mine-${component}`]),
    ]);
    const manifests = chart.helm.render({ set });
    expect(ofKind(manifests, 'Certificate')).toEqual([]);
    for (const component of GRPC_COMPONENTS) expect(tlsSecretOf(manifests, component)).toBe(`mine-${component}`);
  });

  it('refuses a release whose services would have no certificate', () => {
    const missing = chart.helm.run(
      chart.helm.templateArgs({ set: { 'mtls.certManager.enabled': 'false', 'mtls.existingSecrets.catalog': 'x' } }),
    );
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toMatch(/mtls/);
    const skipped = chart.helm.run(
      chart.helm.templateArgs({ set: { 'mtls.certManager.enabled': 'false' }, extraArgs: ['--skip-schema-validation'] }),
    );
    expect(skipped.status).not.toBe(0);
    expect(skipped.stderr).toContain('mtls: internal gRPC is mutual TLS; set mtls.certManager.enabled=true');
  });
});
