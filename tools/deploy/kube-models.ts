// Offline validation of rendered manifests: each object against the Kubernetes OpenAPI model of
// its apiVersion/kind (kubernetes-models, generated from the API server's OpenAPI spec), since no
// cluster is there to ask. KEDA's ScaledObject has no model there; it is checked against the
// fields its nats-jetstream scaler reads (keda.sh/docs/scalers/nats-jetstream). The
// prometheus-operator's PrometheusRule and ServiceMonitor have models of their own, generated from
// its CRDs (@kubernetes-models/prometheus-operator).
import { PrometheusRule, ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';
import type { Manifest } from './helm.js';

interface Model {
  validate(): void;
}
type ModelClass = new (data: never) => Model;

const MODELS: Record<string, ModelClass> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'apps/v1/Deployment': Deployment,
  'batch/v1/Job': Job,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'networking.k8s.io/v1/Ingress': Ingress,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'monitoring.coreos.com/v1/PrometheusRule': PrometheusRule,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
};

/** Problems of one manifest; empty when it is valid. */
export function validateManifest(manifest: Manifest): string[] {
  const id = `${manifest.apiVersion}/${manifest.kind} ${manifest.metadata?.name}`;
  if (manifest.apiVersion === 'keda.sh/v1alpha1' && manifest.kind === 'ScaledObject') {
    return validateScaledObject(manifest).map((problem) => `${id}: ${problem}`);
  }
  if (manifest.apiVersion === 'cert-manager.io/v1' && manifest.kind === 'Certificate') {
    return validateCertificate(manifest).map((problem) => `${id}: ${problem}`);
  }
  if (manifest.apiVersion === 'cert-manager.io/v1' && manifest.kind === 'Issuer') {
    return validateIssuer(manifest).map((problem) => `${id}: ${problem}`);
  }
  const Model = MODELS[`${manifest.apiVersion}/${manifest.kind}`];
  if (!Model) return [`${id}: no model to validate it against (add its kind to tools/deploy/kube-models.ts)`];
  try {
    new Model(manifest as never).validate();
    return [];
  } catch (error) {
    return [`${id}: ${error instanceof Error ? error.message : String(error)}`];
  }
}

// cert-manager's Certificate and Issuer have no model there either: checked against the fields
// cert-manager.io/docs/reference/api-docs (v1) requires and the values it accepts.
const KEY_USAGES = new Set(['digital signature', 'key encipherment', 'server auth', 'client auth', 'cert sign', 'crl sign']);

function validateCertificate(manifest: Manifest): string[] {
  const problems: string[] = [];
  const spec = manifest.spec ?? {};
  if (typeof spec.secretName !== 'string' || spec.secretName === '') problems.push('spec.secretName is required');
  if (typeof spec.issuerRef?.name !== 'string' || spec.issuerRef.name === '') problems.push('spec.issuerRef.name is required');
  if (spec.issuerRef?.kind !== undefined && !['Issuer', 'ClusterIssuer'].includes(spec.issuerRef.kind)) {
    problems.push(`spec.issuerRef.kind must be Issuer or ClusterIssuer, got ${spec.issuerRef.kind}`);
  }
  if (!spec.isCA && !spec.commonName && !(Array.isArray(spec.uris) && spec.uris.length > 0) && !spec.dnsNames) {
    problems.push('a certificate needs a subject: commonName, uris or dnsNames');
  }
  for (const uri of spec.uris ?? [])
    if (!/^spiffe:\/\/[a-z0-9.-]+\/svc\/[a-z][a-z0-9-]*$/.test(uri)) problems.push(`spec.uris: ${uri} is no service identity`);
  for (const usage of spec.usages ?? []) if (!KEY_USAGES.has(usage)) problems.push(`spec.usages: unknown usage ${usage}`);
  for (const field of ['duration', 'renewBefore']) {
    if (spec[field] !== undefined && !/^\d+(h|m|s)$/.test(spec[field])) problems.push(`spec.${field} must be a Go duration such as 2160h`);
  }
  return problems;
}

function validateIssuer(manifest: Manifest): string[] {
  const spec = manifest.spec ?? {};
  const kinds = ['selfSigned', 'ca', 'acme', 'vault', 'venafi'].filter((kind) => spec[kind] !== undefined);
  if (kinds.length !== 1) return [`spec must configure exactly one issuer type, got ${kinds.join(', ') || 'none'}`];
  if (kinds[0] === 'ca' && !spec.ca.secretName) return ['spec.ca.secretName is required'];
  return [];
}

const NATS_JETSTREAM_METADATA = ['natsServerMonitoringEndpoint', 'account', 'stream', 'consumer', 'lagThreshold'];
const isCount = (value: unknown) => Number.isInteger(value) && (value as number) >= 0;

function validateScaledObject(manifest: Manifest): string[] {
  const problems: string[] = [];
  const spec = manifest.spec;
  if (typeof spec !== 'object' || spec === null) return ['spec is missing'];
  const target = spec.scaleTargetRef;
  if (typeof target?.name !== 'string' || target.name === '') problems.push('spec.scaleTargetRef.name must be a non-empty string');
  for (const field of ['minReplicaCount', 'maxReplicaCount', 'pollingInterval', 'cooldownPeriod']) {
    if (spec[field] !== undefined && !isCount(spec[field])) problems.push(`spec.${field} must be a non-negative integer`);
  }
  if (isCount(spec.minReplicaCount) && isCount(spec.maxReplicaCount) && spec.minReplicaCount > spec.maxReplicaCount) {
    problems.push('spec.minReplicaCount exceeds spec.maxReplicaCount');
  }
  if (!Array.isArray(spec.triggers) || spec.triggers.length === 0) return [...problems, 'spec.triggers must list at least one trigger'];
  spec.triggers.forEach((trigger: Manifest['spec'], index: number) => {
    const at = `spec.triggers[${index}]`;
    if (trigger.type !== 'nats-jetstream') problems.push(`${at}.type must be nats-jetstream, got ${trigger.type}`);
    const metadata = trigger.metadata ?? {};
    for (const [key, value] of Object.entries(metadata)) {
      if (typeof value !== 'string') problems.push(`${at}.metadata.${key} must be a string (KEDA reads metadata as strings)`);
    }
    for (const key of NATS_JETSTREAM_METADATA) {
      if (!metadata[key]) problems.push(`${at}.metadata.${key} is required`);
    }
    for (const key of ['lagThreshold', 'activationLagThreshold']) {
      if (metadata[key] !== undefined && !/^\d+$/.test(metadata[key])) problems.push(`${at}.metadata.${key} must be a whole number`);
    }
  });
  return problems;
}
