import type * as K8s from '@kubernetes/client-node';
import type { KubeConfig, RequestContext, ResponseContext, V1Deployment, V2HorizontalPodAutoscaler } from '@kubernetes/client-node';
import { ConfigError } from '@atelier/config';
import { kubeError } from './kube-errors.js';
import { COMPONENT_LABEL } from './release-labels.js';

/** A Deployment as atelier-ops reads it: replica counts, not the wire object. */
export interface DeploymentSummary {
  readonly name: string;
  readonly namespace: string;
  /** The `app.kubernetes.io/component` label (catalog, jobs, worker …), when set. */
  readonly component: string | undefined;
  /** spec.replicas: what the Deployment asks for. */
  readonly desired: number;
  readonly ready: number;
  readonly available: number;
  /** Replicas already running the current pod template. */
  readonly updated: number;
  /** False while the controller has not yet seen the latest spec (a rollout just started). */
  readonly observed: boolean;
}

/** A HorizontalPodAutoscaler, reduced to what decides whether a manual scale sticks. */
export interface AutoscalerSummary {
  readonly name: string;
  readonly targetKind: string;
  readonly targetName: string;
  readonly minReplicas: number;
  readonly maxReplicas: number;
  /** The KEDA ScaledObject that created this HPA, when KEDA did. */
  readonly scaledObject: string | undefined;
}

/** The few Kubernetes calls atelier-ops makes, each with the deadline and error translation applied. */
export interface KubeClient {
  /** The kubeconfig context in use, for messages and reports. */
  readonly context: string;
  readonly server: string;
  listDeployments(namespace: string, selector: string): Promise<DeploymentSummary[]>;
  /** Every HPA in the namespace; none when the cluster does not serve autoscaling/v2. */
  listAutoscalers(namespace: string): Promise<AutoscalerSummary[]>;
  /** Sets spec.replicas through the scale subresource and answers the replicas the API server recorded. */
  scaleDeployment(namespace: string, name: string, replicas: number): Promise<number>;
}

/** The name client-node gives the context it invents when it finds no kubeconfig at all. */
const INVENTED_CONTEXT = 'loaded-context';
/** KEDA labels the HPA it creates for a ScaledObject with the ScaledObject's name. */
const KEDA_SCALED_OBJECT_LABEL = 'scaledobject.keda.sh/name';

export function toDeploymentSummary(deployment: V1Deployment): DeploymentSummary {
  const metadata = deployment.metadata ?? {};
  const status = deployment.status ?? {};
  return {
    name: metadata.name ?? '',
    namespace: metadata.namespace ?? '',
    component: metadata.labels?.[COMPONENT_LABEL],
    // The API server defaults spec.replicas to 1; a missing field means that default.
    desired: deployment.spec?.replicas ?? 1,
    ready: status.readyReplicas ?? 0,
    available: status.availableReplicas ?? 0,
    updated: status.updatedReplicas ?? 0,
    observed: (status.observedGeneration ?? 0) >= (metadata.generation ?? 0),
  };
}

function toAutoscalerSummary(hpa: V2HorizontalPodAutoscaler): AutoscalerSummary {
  return {
    name: hpa.metadata?.name ?? '',
    targetKind: hpa.spec?.scaleTargetRef.kind ?? '',
    targetName: hpa.spec?.scaleTargetRef.name ?? '',
    // The API server defaults minReplicas to 1.
    minReplicas: hpa.spec?.minReplicas ?? 1,
    maxReplicas: hpa.spec?.maxReplicas ?? 0,
    scaledObject: hpa.metadata?.labels?.[KEDA_SCALED_OBJECT_LABEL],
  };
}

function loadKubeConfig(k8s: typeof K8s, context: string | undefined): KubeConfig {
  const kc = new k8s.KubeConfig();
  try {
    // KUBECONFIG (a path list, merged), else ~/.kube/config, else the pod's service account.
    kc.loadFromDefault();
  } catch (error) {
    throw new ConfigError([
      { variable: 'KUBECONFIG', problem: `cannot be read: ${error instanceof Error ? error.message : String(error)}` },
    ]);
  }
  if (context !== undefined) {
    if (!kc.getContextObject(context)) {
      const known = kc.getContexts().map((c) => c.name);
      throw new ConfigError([
        { variable: '--context', problem: `"${context}" is not a context of the kubeconfig (it has: ${known.join(', ') || 'none'})` },
      ]);
    }
    kc.setCurrentContext(context);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster || (kc.getCurrentContext() === INVENTED_CONTEXT && cluster.server === 'http://localhost:8080')) {
    throw new ConfigError([
      {
        variable: 'KUBECONFIG',
        problem: 'names no cluster: set KUBECONFIG or write ~/.kube/config (`kubectl config view` shows what kubectl uses)',
      },
    ]);
  }
  if (cluster.server.startsWith('http:') && !cluster.skipTLSVerify) {
    // client-node refuses plain HTTP unless the cluster entry opts out of TLS verification.
    throw new ConfigError([
      {
        variable: 'KUBECONFIG',
        problem: `cluster "${cluster.name}" is served over plain http (${cluster.server}): set insecure-skip-tls-verify: true on it`,
      },
    ]);
  }
  return kc;
}

/**
 * The client-node package, loaded on first use (the module system keeps it). Loading it keeps the
 * event loop busy for a while — seconds on a loaded machine — so a command that also calls other
 * systems loads it before it starts their deadlines, which would otherwise expire while it loads.
 */
export function loadKubeModule(): Promise<typeof K8s> {
  return import('@kubernetes/client-node');
}

/**
 * Loads the kubeconfig and answers a client for its current (or the given) context. A
 * kubeconfig that cannot work is a ConfigError naming KUBECONFIG or --context. The client-node
 * package is loaded here, on demand: it is large, and the commands that do not talk to
 * Kubernetes should not pay for it.
 */
export async function connectKube(options: { context: string | undefined; timeoutMs: number }): Promise<KubeClient> {
  const k8s = await loadKubeModule();
  const kc = loadKubeConfig(k8s, options.context);
  const context = kc.getCurrentContext();
  const server = kc.getCurrentCluster()!.server;
  const apps = kc.makeApiClient(k8s.AppsV1Api);
  const autoscaling = kc.makeApiClient(k8s.AutoscalingV2Api);

  // Per call: a deadline (client-node has none of its own; a black-holed API server would hang
  // the command) and any extra headers. Its middleware speaks its own Observable, not promises.
  const callOptions = (headers: Record<string, string> = {}) => ({
    middleware: [
      {
        pre: (request: RequestContext) => {
          for (const [name, value] of Object.entries(headers)) request.setHeaderParam(name, value);
          request.setSignal(AbortSignal.timeout(options.timeoutMs));
          return new k8s.Observable(Promise.resolve(request));
        },
        post: (response: ResponseContext) => new k8s.Observable(Promise.resolve(response)),
      },
    ],
    middlewareMergeStrategy: 'append' as const,
  });
  const call = async <T>(action: string, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      throw kubeError(error, { action, context, server, timeoutMs: options.timeoutMs });
    }
  };

  return {
    context,
    server,
    listDeployments: (namespace, selector) =>
      call(`list Deployments in namespace ${namespace}`, async () => {
        const list = await apps.listNamespacedDeployment({ namespace, labelSelector: selector }, callOptions());
        return list.items.map(toDeploymentSummary).sort((a, b) => a.name.localeCompare(b.name));
      }),
    listAutoscalers: (namespace) =>
      call(`list HorizontalPodAutoscalers in namespace ${namespace}`, async () => {
        try {
          const list = await autoscaling.listNamespacedHorizontalPodAutoscaler({ namespace }, callOptions());
          return list.items.map(toAutoscalerSummary);
        } catch (error) {
          // A cluster without autoscaling/v2 (before 1.23) cannot hold the chart's HPA, which is a v2 object.
          if ((error as { code?: unknown }).code === 404) return [];
          throw error;
        }
      }),
    scaleDeployment: (namespace, name, replicas) =>
      call(`scale Deployment ${name} in namespace ${namespace}`, async () => {
        // A merge patch of the scale subresource changes replicas only: no read-modify-write
        // race with a rollout, and the RBAC needed is just `patch deployments/scale`.
        const scale = await apps.patchNamespacedDeploymentScale(
          { name, namespace, body: { spec: { replicas } } },
          callOptions({ 'Content-Type': k8s.PatchStrategy.MergePatch }),
        );
        return scale.spec?.replicas ?? 0;
      }),
  };
}
