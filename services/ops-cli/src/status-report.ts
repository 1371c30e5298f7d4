import type { ConsumerLag } from './consumer-lag.js';
import { ExitCode, worstExitCode } from './exit-codes.js';
import type { AutoscalerSummary, DeploymentSummary } from './kube-client.js';
import { WORKER_COMPONENT } from './release-labels.js';
import { formatAge, plural, table } from './text-format.js';

/**
 * What `atelier-ops status` found, judged and printed. Pure: the command gathers the sources,
 * this file decides what they mean (the verdict and exit status) and how they read.
 */

/** A source that answered, or why it did not. */
export type Section<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: SectionError };

export interface SectionError {
  readonly code: string;
  readonly reason: string | undefined;
  readonly message: string;
}

export interface KubernetesPart {
  readonly deployments: readonly DeploymentSummary[];
  /** Read to tell whether the workers are autoscaled; a refusal here only costs that detail. */
  readonly autoscalers: Section<readonly AutoscalerSummary[]>;
}

export type QueueName = 'interactive' | 'background' | 'unspecified';

export interface QueueDepthView {
  readonly queue: QueueName;
  readonly ready: number;
  readonly delayed: number;
  readonly running: number;
  readonly oldestReadyAgeMs: number;
}

export interface JobsBacklog {
  readonly queues: readonly QueueDepthView[];
  readonly outboxPending: number;
  readonly outboxDead: number;
  readonly outboxOldestPendingAgeMs: number;
  readonly expiredLeases: number;
}

/** Everything gathered, before judging it. */
export interface StatusSources {
  readonly namespace: string;
  readonly selector: string;
  /** The kubeconfig context, when the kubeconfig could be loaded. */
  readonly kubeContext: string | undefined;
  readonly jobsAddress: string;
  readonly streamPrefix: string;
  readonly kubernetes: Section<KubernetesPart>;
  readonly consumers: Section<readonly ConsumerLag[]>;
  readonly jobs: Section<JobsBacklog>;
}

export interface WorkerReplicas {
  readonly name: string;
  readonly desired: number;
  readonly ready: number;
  readonly available: number;
  readonly autoscaler: AutoscalerSummary | undefined;
}

export type Verdict = 'ready' | 'not-ready' | 'incomplete';

export interface StatusReport extends StatusSources {
  readonly workers: readonly WorkerReplicas[];
  readonly verdict: Verdict;
  readonly exitCode: ExitCode;
  /** Why the release is not ready. */
  readonly problems: readonly string[];
  /** Sources that could not be read. */
  readonly unavailable: readonly string[];
  /** Worth a look, but not a reason to fail a readiness check (dead events can sit for days). */
  readonly warnings: readonly string[];
}

/** How long a due outbox event may wait before it means the relay is not keeping up. */
const OUTBOX_STALL_MS = 60_000;

/** Fully rolled out: the controller saw the latest spec and every desired replica is updated, ready and available. */
export function isDeploymentReady(deployment: DeploymentSummary): boolean {
  const { desired } = deployment;
  return deployment.observed && deployment.updated >= desired && deployment.ready >= desired && deployment.available >= desired;
}

function notReadyReason(deployment: DeploymentSummary): string {
  const parts = [`${deployment.ready} of ${deployment.desired} replicas ready`];
  if (!deployment.observed || deployment.updated < deployment.desired)
    parts.push(`rolling out (${deployment.updated} of ${deployment.desired} updated)`);
  if (deployment.available < deployment.desired) parts.push(`${deployment.available} available`);
  return `${deployment.name}: ${parts.join(', ')}`;
}

function workersOf(kubernetes: KubernetesPart): WorkerReplicas[] {
  const autoscalers = kubernetes.autoscalers.ok ? kubernetes.autoscalers.value : [];
  return kubernetes.deployments
    .filter((d) => d.component === WORKER_COMPONENT)
    .map((d) => ({
      name: d.name,
      desired: d.desired,
      ready: d.ready,
      available: d.available,
      autoscaler: autoscalers.find((a) => a.targetKind === 'Deployment' && a.targetName === d.name),
    }));
}

export function describeAutoscaler(autoscaler: AutoscalerSummary): string {
  const owner = autoscaler.scaledObject
    ? `KEDA ScaledObject ${autoscaler.scaledObject} via HPA ${autoscaler.name}`
    : `HPA ${autoscaler.name}`;
  return `${owner} (${autoscaler.minReplicas}–${autoscaler.maxReplicas})`;
}

/** Judges the sources: the verdict, the exit status and the lines that explain them. */
export function assessStatus(sources: StatusSources): StatusReport {
  const problems: string[] = [];
  const unavailable: string[] = [];
  const warnings: string[] = [];
  let workers: WorkerReplicas[] = [];

  if (!sources.kubernetes.ok) {
    unavailable.push(`Kubernetes: ${sources.kubernetes.error.message}`);
  } else {
    const { deployments, autoscalers } = sources.kubernetes.value;
    workers = workersOf(sources.kubernetes.value);
    if (deployments.length === 0) {
      problems.push(`no Deployment in namespace ${sources.namespace} matches ${sources.selector} (wrong --namespace or --selector?)`);
    } else if (workers.length === 0) {
      problems.push(`no worker Deployment (label app.kubernetes.io/component=${WORKER_COMPONENT}) among them`);
    }
    for (const deployment of deployments) if (!isDeploymentReady(deployment)) problems.push(notReadyReason(deployment));
    if (!autoscalers.ok) warnings.push(`cannot tell whether an autoscaler manages the workers: ${autoscalers.error.message}`);
  }

  if (!sources.consumers.ok) {
    unavailable.push(`NATS: ${sources.consumers.error.message}`);
  } else {
    const missingStream = sources.consumers.value.find((c) => !c.found && c.missing === 'stream');
    if (missingStream) {
      problems.push(
        `stream ${missingStream.stream} does not exist: jobs creates it at start-up with NATS_STREAM_PREFIX=${sources.streamPrefix} — is the prefix right?`,
      );
    }
    for (const lag of sources.consumers.value) {
      if (!lag.found && lag.missing === 'consumer') {
        problems.push(
          `consumer ${lag.consumer} does not exist on ${lag.stream}: no worker has started with NATS_STREAM_PREFIX=${sources.streamPrefix}`,
        );
      }
    }
  }

  if (!sources.jobs.ok) {
    unavailable.push(`jobs: ${sources.jobs.error.message}`);
  } else {
    const jobs = sources.jobs.value;
    if (jobs.outboxDead > 0) warnings.push(`${plural(jobs.outboxDead, 'dead outbox event')}: see \`atelier-ops dead-letters list\``);
    if (jobs.outboxOldestPendingAgeMs > OUTBOX_STALL_MS) {
      warnings.push(
        `the oldest due outbox event has waited ${formatAge(jobs.outboxOldestPendingAgeMs)}: is the relay in jobs publishing (can jobs reach NATS)?`,
      );
    }
    if (jobs.expiredLeases > 0) warnings.push(`${plural(jobs.expiredLeases, 'running job')} with an expired lease, waiting for the reaper`);
    const waiting = jobs.queues.reduce((sum, q) => sum + q.ready, 0);
    if (waiting > 0 && workers.length > 0 && workers.every((w) => w.desired === 0)) {
      warnings.push(`the workers are scaled to 0 while ${plural(waiting, 'job')} wait: \`atelier-ops scale-workers <n>\``);
    }
  }

  const verdict: Verdict = unavailable.length > 0 ? 'incomplete' : problems.length > 0 ? 'not-ready' : 'ready';
  const exitCode = worstExitCode([
    unavailable.length > 0 ? ExitCode.UNAVAILABLE : ExitCode.OK,
    problems.length > 0 ? ExitCode.FAILURE : ExitCode.OK,
  ]);
  return { ...sources, workers, verdict, exitCode, problems, unavailable, warnings };
}

function sectionFailure(error: SectionError): string[] {
  return [`  unavailable: ${error.message}`];
}

function deploymentLines(report: StatusReport): string[] {
  if (!report.kubernetes.ok) return sectionFailure(report.kubernetes.error);
  const { deployments } = report.kubernetes.value;
  if (deployments.length === 0) return ['  (none)'];
  return table(
    ['COMPONENT', 'DEPLOYMENT', 'READY', 'UP-TO-DATE', 'AVAILABLE', ''],
    deployments.map((d) => [
      d.component ?? '-',
      d.name,
      `${d.ready}/${d.desired}`,
      String(d.updated),
      String(d.available),
      isDeploymentReady(d) ? '' : 'NOT READY',
    ]),
  );
}

function workerLines(report: StatusReport): string[] {
  if (!report.kubernetes.ok) return ['  unavailable: see Deployments'];
  if (report.workers.length === 0) return ['  (no worker Deployment)'];
  const autoscalersKnown = report.kubernetes.value.autoscalers.ok;
  return table(
    ['DEPLOYMENT', 'DESIRED', 'READY', 'AVAILABLE', 'AUTOSCALER'],
    report.workers.map((w) => [
      w.name,
      String(w.desired),
      String(w.ready),
      String(w.available),
      w.autoscaler ? describeAutoscaler(w.autoscaler) : autoscalersKnown ? 'none' : 'unknown',
    ]),
  );
}

function consumerLines(report: StatusReport): string[] {
  if (!report.consumers.ok) return sectionFailure(report.consumers.error);
  return table(
    ['QUEUE', 'STREAM', 'CONSUMER', 'PENDING', 'ACK-PENDING', 'REDELIVERED', 'WAITING', ''],
    report.consumers.value.map((c) =>
      c.found
        ? [c.queue, c.stream, c.consumer, String(c.pending), String(c.ackPending), String(c.redelivered), String(c.waiting), '']
        : [c.queue, c.stream, c.consumer, '-', '-', '-', '-', `MISSING ${c.missing.toUpperCase()}`],
    ),
  );
}

function jobsLines(report: StatusReport): string[] {
  if (!report.jobs.ok) return sectionFailure(report.jobs.error);
  const jobs = report.jobs.value;
  const due = jobs.outboxOldestPendingAgeMs > 0 ? ` (oldest due ${formatAge(jobs.outboxOldestPendingAgeMs)} ago)` : '';
  return [
    ...table(
      ['QUEUE', 'READY', 'DELAYED', 'RUNNING', 'OLDEST READY'],
      jobs.queues.map((q) => [q.queue, String(q.ready), String(q.delayed), String(q.running), formatAge(q.oldestReadyAgeMs)]),
    ),
    `  outbox: ${jobs.outboxPending} pending${due}, ${jobs.outboxDead} dead; expired leases: ${jobs.expiredLeases}`,
  ];
}

function verdictLine(report: StatusReport): string {
  if (report.verdict === 'ready') return `READY (exit ${report.exitCode})`;
  if (report.verdict === 'not-ready') return `NOT READY (exit ${report.exitCode})`;
  return `INCOMPLETE: ${plural(report.unavailable.length, 'source')} could not be read (exit ${report.exitCode})`;
}

/** The report for a terminal: one block per source, then what is wrong and the verdict. */
export function formatStatusTable(report: StatusReport): string {
  const context = report.kubeContext ? `, context ${report.kubeContext}` : '';
  const lines = [
    `Atelier in namespace ${report.namespace} (selector ${report.selector}${context})`,
    '',
    'Deployments',
    ...deploymentLines(report),
    '',
    'Workers',
    ...workerLines(report),
    '',
    `JetStream consumers (NATS_STREAM_PREFIX=${report.streamPrefix})`,
    ...consumerLines(report),
    '',
    `Jobs (${report.jobsAddress})`,
    ...jobsLines(report),
    '',
  ];
  if (report.problems.length > 0) lines.push('Not ready:', ...report.problems.map((p) => `  - ${p}`));
  if (report.warnings.length > 0) lines.push('Warnings:', ...report.warnings.map((w) => `  - ${w}`));
  lines.push(verdictLine(report));
  return `${lines.join('\n')}\n`;
}

function sectionJson<T>(section: Section<T>, render: (value: T) => Record<string, unknown>): Record<string, unknown> {
  return section.ok ? { ok: true, ...render(section.value) } : { ok: false, error: section.error };
}

/**
 * The report for scripts. Its shape is a contract (README): fields are added, never renamed; a
 * source that could not be read is `{ "ok": false, "error": { code, reason, message } }`.
 */
export function formatStatusJson(report: StatusReport): string {
  const document = {
    namespace: report.namespace,
    selector: report.selector,
    context: report.kubeContext ?? null,
    verdict: report.verdict,
    exitCode: report.exitCode,
    deployments: sectionJson(report.kubernetes, ({ deployments }) => ({
      items: deployments.map((d) => ({ ...d, component: d.component ?? null, isReady: isDeploymentReady(d) })),
    })),
    workers: report.workers.map((w) => ({
      ...w,
      autoscaler: w.autoscaler ? { ...w.autoscaler, scaledObject: w.autoscaler.scaledObject ?? null } : null,
    })),
    consumers: sectionJson(report.consumers, (items) => ({ streamPrefix: report.streamPrefix, items })),
    jobs: sectionJson(report.jobs, (jobs) => ({ address: report.jobsAddress, ...jobs })),
    problems: report.problems,
    unavailable: report.unavailable,
    warnings: report.warnings,
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}
