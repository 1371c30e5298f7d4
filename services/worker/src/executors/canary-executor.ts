import type { JobExecutor } from './job-executor.js';

/** system.canary: nothing to do — the probe measures the pipeline around it. */
export const canaryExecutor: JobExecutor = {
  async execute() {
    return {};
  },
};
