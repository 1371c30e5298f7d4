// NetworkPolicies: everything denied, then each service opened to exactly the callers the code
// wires to it (derived from the services' config.ts), the gateway to the outside, the metrics
// ports to Prometheus. And the Ingress, the one public entry.
import { describe, expect, it } from 'vitest';
import { STAND_INS, callersByService, portsOf } from './code-facts.js';
import { RELEASE, VALUE_SETS, get, nameOf, ofKind, type Manifest, useRenderedChart } from './helm.js';

const chart = useRenderedChart();
const { rendered } = chart;

const callers = callersByService();
const prometheus = [
  {
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } },
    podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } },
  },
];

/** The ingress rules of a policy, as port → the components (or raw peers) allowed. */
function rulesOf(policy: Manifest): Map<number, Manifest[] | 'anyone'> {
  const rules = new Map<number, Manifest[] | 'anyone'>();
  for (const rule of policy.spec.ingress ?? []) {
    for (const { port } of rule.ports) rules.set(port, rule.from ?? 'anyone');
  }
  return rules;
}

/** The component each peer selects, when it is a pod of this release in this namespace. */
function componentsOf(peers: Manifest[]): string[] {
  return peers
    .map((peer) => {
      expect(peer.namespaceSelector, 'a caller peer stays in the release namespace').toBeUndefined();
      expect(peer.podSelector.matchLabels['app.kubernetes.io/instance']).toBe(RELEASE);
      return peer.podSelector.matchLabels['app.kubernetes.io/component'] as string;
    })
    .sort();
}

describe('chart - network policies', () => {
  it('wires the caller matrix the services configure', () => {
    // A change here is a change of who may call whom: review the NetworkPolicies with it.
    expect(Object.fromEntries(callers)).toEqual({
      catalog: ['gateway', 'jobs', 'worker'],
      media: ['catalog', 'community', 'gateway', 'jobs', 'worker'],
      jobs: ['community', 'gateway', 'media', 'webhooks', 'worker'],
      community: ['gateway', 'media'],
      webhooks: ['gateway'],
      'pet-directory-sim': ['jobs'],
      'provider-sim': ['worker'],
    });
  });

  it.each(Object.keys(VALUE_SETS))('%s values: denies all ingress to every pod of the release by default', (set) => {
    const manifests = rendered[set] ?? [];
    const deny = get(manifests, 'NetworkPolicy', `${RELEASE}-default-deny-ingress`);
    expect(deny.spec.policyTypes).toEqual(['Ingress']);
    expect(deny.spec.ingress).toBeUndefined();
    const selector = deny.spec.podSelector.matchLabels as Record<string, string>;
    for (const pod of [...ofKind(manifests, 'Deployment'), ...ofKind(manifests, 'Job')]) {
      expect(pod.spec.template.metadata.labels, pod.metadata.name).toMatchObject(selector);
    }
  });

  it.each(Object.keys(VALUE_SETS))('%s values: opens each service port to exactly its callers', (set) => {
    const manifests = rendered[set] ?? [];
    for (const [service, expected] of callers) {
      if (set === 'production' && STAND_INS.includes(service)) continue;
      const rules = rulesOf(get(manifests, 'NetworkPolicy', nameOf(service)));
      const allowed = rules.get(portsOf(service).main);
      if (allowed === undefined || allowed === 'anyone')
        throw new Error(`${service}: its port is ${allowed ? 'open to anyone' : 'closed'}`);
      expect(componentsOf(allowed), service).toEqual(expected);
    }
  });

  it('opens metrics ports to Prometheus only, and nothing else on any policy', () => {
    const manifests = rendered.default ?? [];
    for (const service of ['catalog', 'media', 'jobs', 'community', 'pet-directory-sim']) {
      const rules = rulesOf(get(manifests, 'NetworkPolicy', nameOf(service)));
      expect([...rules.keys()].sort(), service).toEqual([portsOf(service).main, portsOf(service).metrics].sort());
      expect(rules.get(portsOf(service).metrics ?? 0), service).toEqual(prometheus);
    }
    const worker = rulesOf(get(manifests, 'NetworkPolicy', nameOf('worker')));
    expect([...worker.entries()]).toEqual([[portsOf('worker').main, prometheus]]);
    const providerSim = rulesOf(get(manifests, 'NetworkPolicy', nameOf('provider-sim')));
    expect([...providerSim.keys()]).toEqual([portsOf('provider-sim').main]);
  });

  it('opens the gateway to anyone by default, and to the ingress controller and Prometheus when told', () => {
    const open = rulesOf(get(rendered.default ?? [], 'NetworkPolicy', nameOf('gateway')));
    expect([...open.entries()]).toEqual([[portsOf('gateway').main, 'anyone']]);
    const restricted = rulesOf(get(rendered.production ?? [], 'NetworkPolicy', nameOf('gateway')));
    expect([...restricted.entries()]).toEqual([
      [
        portsOf('gateway').main,
        [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } }, ...prometheus],
      ],
    ]);
  });

  it('restricts ingress only: egress stays open, so the gateway reaches NATS (its rate limit) like jobs, media and the workers', () => {
    for (const set of Object.keys(VALUE_SETS)) {
      for (const policy of ofKind(rendered[set] ?? [], 'NetworkPolicy')) {
        expect(policy.spec.policyTypes, `${set}: ${policy.metadata.name}`).toEqual(['Ingress']);
        expect(policy.spec.egress, `${set}: ${policy.metadata.name}`).toBeUndefined();
      }
    }
  });

  it('renders no policy when networkPolicy.enabled is false', () => {
    expect(ofKind(chart.helm.render({ set: { 'networkPolicy.enabled': 'false' } }), 'NetworkPolicy')).toEqual([]);
  });
});

describe('chart - ingress', () => {
  it('is off by default', () => {
    expect(ofKind(rendered.default ?? [], 'Ingress')).toEqual([]);
  });

  it('routes only the API paths to the gateway, over TLS, in production', () => {
    const ingress = get(rendered.production ?? [], 'Ingress', nameOf('gateway'));
    expect(ingress.spec.tls).toEqual([{ secretName: 'atelier-api-tls', hosts: ['api.atelier.example.com'] }]);
    const [rule] = ingress.spec.rules;
    expect(rule.host).toBe('api.atelier.example.com');
    const paths = rule.http.paths.map((entry: Manifest) => entry.path);
    expect(paths).toEqual(['/api', '/admin-api', '/docs', '/openapi.json']);
    for (const entry of rule.http.paths) {
      expect(entry.backend.service).toEqual({ name: nameOf('gateway'), port: { name: 'http' } });
    }
    const service = get(rendered.production ?? [], 'Service', nameOf('gateway'));
    expect(service.spec.ports.map((port: Manifest) => port.name)).toContain('http');
  });
});
