/**
 * How atelier-ops finds a release in a cluster: the chart labels every Deployment with the
 * Kubernetes recommended labels, `app.kubernetes.io/part-of: atelier` for the release and
 * `app.kubernetes.io/component: <service>` for the unit (`worker` for the workers). A narrower
 * selector (e.g. `app.kubernetes.io/instance=<helm release>`) tells two releases apart in one
 * namespace.
 */
export const PART_OF_LABEL = 'app.kubernetes.io/part-of';
export const COMPONENT_LABEL = 'app.kubernetes.io/component';
export const WORKER_COMPONENT = 'worker';
export const DEFAULT_RELEASE_SELECTOR = `${PART_OF_LABEL}=atelier`;

/** A namespace name is a DNS-1123 label. */
export const NAMESPACE_PATTERN = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** The release's worker Deployments: the release selector narrowed to the worker component. */
export function workerSelector(releaseSelector: string): string {
  return `${releaseSelector},${COMPONENT_LABEL}=${WORKER_COMPONENT}`;
}
