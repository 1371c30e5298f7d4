import { AppError, ErrorCode, FailedPreconditionError } from '@atelier/errors';
import type { CliCommand } from './cli-args.js';
import type { CommandContext } from './command-context.js';
import { ExitCode } from './exit-codes.js';
import { connectKube, type AutoscalerSummary, type KubeClient } from './kube-client.js';
import { workerSelector } from './release-labels.js';
import { describeAutoscaler } from './status-report.js';

type ScaleWorkersCommand = Extract<CliCommand, { name: 'scale-workers' }>;

/**
 * The autoscalers targeting the worker Deployment. When they cannot be listed (RBAC), scaling
 * blind is allowed only with --force: a hidden HPA would silently undo the change.
 */
async function autoscalersOf(kube: KubeClient, namespace: string, deployment: string, force: boolean, warn: (text: string) => void) {
  let autoscalers: AutoscalerSummary[];
  try {
    autoscalers = await kube.listAutoscalers(namespace);
  } catch (error) {
    if (!force) {
      const message = error instanceof Error ? error.message : String(error);
      throw new FailedPreconditionError(
        'AUTOSCALERS_UNKNOWN',
        `cannot check whether an autoscaler manages ${deployment} (${message}); re-run with --force to scale without checking`,
        { cause: error },
      );
    }
    warn(`cannot check for an autoscaler on ${deployment}; scaling anyway (--force)`);
    return [];
  }
  return autoscalers.filter((a) => a.targetKind === 'Deployment' && a.targetName === deployment);
}

/** `atelier-ops scale-workers N`: sets the one worker Deployment's replicas through its scale subresource. */
export async function scaleWorkersCommand(command: ScaleWorkersCommand, { io, config }: CommandContext): Promise<ExitCode> {
  const namespace = command.kube.namespace ?? config.ATELIER_NAMESPACE;
  const selector = workerSelector(command.kube.selector ?? config.ATELIER_SELECTOR);
  const warn = (text: string) => io.stderr.write(`atelier-ops: warning: ${text}\n`);
  const kube = await connectKube({ context: command.kube.context, timeoutMs: config.ATELIER_OPS_TIMEOUT_MS });

  const workers = await kube.listDeployments(namespace, selector);
  if (workers.length === 0) {
    throw new AppError(
      ErrorCode.NOT_FOUND,
      `no worker Deployment in namespace ${namespace} matches ${selector} (context ${kube.context}); check --namespace, --selector and --context`,
      { reason: 'WORKER_DEPLOYMENT_NOT_FOUND' },
    );
  }
  if (workers.length > 1) {
    throw new FailedPreconditionError(
      'WORKER_DEPLOYMENT_AMBIGUOUS',
      `${workers.length} worker Deployments match ${selector}: ${workers.map((w) => w.name).join(', ')}; ` +
        'narrow --selector to one release, e.g. app.kubernetes.io/instance=<release>',
    );
  }
  const worker = workers[0]!;

  const autoscalers = await autoscalersOf(kube, namespace, worker.name, command.force, warn);
  if (autoscalers.length > 0) {
    const owners = autoscalers.map(describeAutoscaler).join(', ');
    if (!command.force) {
      throw new FailedPreconditionError(
        'WORKERS_AUTOSCALED',
        `${owners} manages ${worker.name} and would replace a manual scale within seconds; change its bounds ` +
          '(the chart values) instead, or re-run with --force to scale anyway',
      );
    }
    warn(`${owners} manages ${worker.name} and will override this scale on its next sync (--force)`);
  }

  const recorded = await kube.scaleDeployment(namespace, worker.name, command.replicas);
  const change = worker.desired === recorded ? `already at ${recorded} replicas` : `replicas from ${worker.desired} to ${recorded}`;
  io.stdout.write(
    `${worker.name} in namespace ${namespace} (context ${kube.context}): ${change}; ${worker.ready} ready now. ` +
      'Follow the rollout with `atelier-ops status`.\n',
  );
  return ExitCode.OK;
}
