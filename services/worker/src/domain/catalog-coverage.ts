import { findJobType, type JobExecutorKind } from '@atelier/job-types';

/** What the worker needs to know of an enabled catalog model. */
export interface CatalogModelRef {
  id: string;
  code: string;
  jobType: string;
  providerCode: string;
}

/** An enabled model this worker cannot run, and why. */
export interface UnrunnableModel extends CatalogModelRef {
  problem: string;
}

/** Which executors call a vendor (and so need a client for the model's provider_code). */
export const EXECUTOR_CALLS_PROVIDER: Readonly<Record<JobExecutorKind, boolean>> = { image: true, canary: false };

/**
 * The enabled models a job of which would fail here on the first attempt: a job type this build
 * does not ship (no executor), or a provider it has no client for. Empty: the worker can run the
 * whole catalog. (The catalog refuses such entries at write; this catches a catalog and a worker of
 * different builds, e.g. mid-deploy.)
 */
export function unrunnableModels(models: readonly CatalogModelRef[], providerCodes: ReadonlySet<string>): UnrunnableModel[] {
  const unrunnable: UnrunnableModel[] = [];
  for (const model of models) {
    const type = findJobType(model.jobType);
    const ref = { id: model.id, code: model.code, jobType: model.jobType, providerCode: model.providerCode };
    if (!type) unrunnable.push({ ...ref, problem: `job type ${model.jobType} is not one this worker runs` });
    else if (EXECUTOR_CALLS_PROVIDER[type.executor] && !providerCodes.has(model.providerCode)) {
      unrunnable.push({ ...ref, problem: `no provider client for provider code ${model.providerCode}` });
    }
  }
  return unrunnable;
}
