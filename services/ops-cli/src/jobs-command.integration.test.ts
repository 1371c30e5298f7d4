import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobsExecutionV1 } from '@atelier/contracts';
import type { PromiseClient } from '@atelier/grpc';
import { testClient } from '@atelier/testing';
import { runCli } from './cli.js';
import { ExitCode } from './exit-codes.js';
import { captureIo, startOpsTestEnv, type OpsTestEnv } from './test-support/ops-test-env.js';

let env: OpsTestEnv;
let execution: PromiseClient<jobsExecutionV1.JobExecutionServiceClient>;
const WORKER = 'worker:ops-test-1';

beforeAll(async () => {
  env = await startOpsTestEnv();
  execution = await testClient(jobsExecutionV1.JobExecutionServiceClient, env.jobs.address, 'worker', { defaultDeadlineMs: 10_000 });
}, 60_000);

afterAll(async () => {
  execution?.close();
  await env?.stop();
});

async function cli(args: string[], extraEnv: Record<string, string> = {}) {
  const io = captureIo(env.cliEnv(extraEnv));
  const exitCode = await runCli(args, io);
  return { exitCode, out: io.out(), err: io.err() };
}

/** A canary a worker claimed and failed for good, with an internal detail only operators see. */
async function failedJob(): Promise<string> {
  const [jobId] = await env.createCanaries(1);
  await execution.claimJob({ jobId: jobId!, workerId: 'ops-test-1' });
  await execution.failJob(
    jobsExecutionV1.FailJobRequest.fromPartial({
      jobId,
      workerId: 'ops-test-1',
      errorClass: jobsExecutionV1.ErrorClass.CONTENT_SAFETY,
      errorCode: 'CONTENT_SAFETY_REJECTED',
      publicMessage: 'the image was refused',
      internalMessage: 'classifier score 0.97',
      retryable: false,
    }),
  );
  return jobId!;
}

describe('jobs show - a job’s timeline through the jobs admin API', () => {
  it('prints the job, one line per transition and one per attempt, with the internal error', async () => {
    const jobId = await failedJob();
    const { exitCode, out, err } = await cli(['jobs', 'show', jobId]);
    expect({ exitCode, err }).toEqual({ exitCode: ExitCode.OK, err: '' });
    expect(out).toMatch(new RegExp(`^Job ${jobId} \\(system\\.canary, interactive queue\\): failed, attempt 1 of \\d+$`, 'm'));
    expect(out).toContain('  error: CONTENT_SAFETY_REJECTED: the image was refused');
    expect(out).toContain('  internal error: classifier score 0.97');
    expect(out).toMatch(/^ {2}\d{4}-\S+Z\s+created → queued\s+-\s+user:\S+/m);
    expect(out).toMatch(/^ {2}\d{4}-\S+Z\s+queued → running\s+1\s+worker:ops-test-1/m);
    expect(out).toMatch(/^ {2}\d{4}-\S+Z\s+running → failed\s+1\s+worker:ops-test-1\s+CONTENT_SAFETY_REJECTED \(content_safety\)/m);
    expect(out).toMatch(
      /^Attempts\n {2}ATTEMPT.*\n {2}1\s+\d{4}-\S+Z\s+\S+\s+\S+\s+failed\s+worker:ops-test-1\s+worker:ops-test-1\s+CONTENT_SAFETY/m,
    );
  });

  it('prints the same story as JSON with --json', async () => {
    const jobId = await failedJob();
    const { exitCode, out } = await cli(['jobs', 'show', jobId, '--json']);
    expect(exitCode).toBe(ExitCode.OK);
    const document = JSON.parse(out);
    expect(document.job).toMatchObject({
      id: jobId,
      status: 'failed',
      jobType: 'system.canary',
      internalErrorMessage: 'classifier score 0.97',
    });
    expect(document.events.map((e: { fromStatus: string | null; toStatus: string }) => [e.fromStatus, e.toStatus])).toEqual([
      [null, 'queued'],
      ['queued', 'running'],
      ['running', 'failed'],
    ]);
    expect(document.attempts).toEqual([
      expect.objectContaining({ attempt: 1, outcome: 'failed', claimedBy: WORKER, endedBy: WORKER, errorClass: 'content_safety' }),
    ]);
    expect(document.attempts[0].queuedWaitMs).toBeGreaterThanOrEqual(0);
  });

  it('exits 1 for a job that does not exist', async () => {
    const { exitCode, err } = await cli(['jobs', 'show', '019a0000-0000-7000-8000-0000000000ab']);
    expect(exitCode).toBe(ExitCode.FAILURE);
    expect(err).toMatch(/^atelier-ops: JOB_NOT_FOUND: job not found/);
  });
});

describe('jobs cancel - an operator’s cancel', () => {
  it('cancels a queued job, prints its new status and records the operator', async () => {
    const [jobId] = await env.createCanaries(1);
    const { exitCode, out, err } = await cli(['jobs', 'cancel', jobId!, '--operator', 'ops-test']);
    expect({ exitCode, err }).toEqual({ exitCode: ExitCode.OK, err: '' });
    expect(out).toBe(`cancelled job ${jobId} (system.canary): its status is now cancelled\n`);
    const { events } = await env.admin.getJobDetails({ jobId: jobId! });
    expect(events.at(-1)).toMatchObject({ actor: 'operator:ops-test' });
  });

  it('refuses a job that already ended with exit 1 and one line naming its status', async () => {
    const jobId = await failedJob();
    const { exitCode, out, err } = await cli(['jobs', 'cancel', jobId]);
    expect(exitCode).toBe(ExitCode.FAILURE);
    expect(out).toBe('');
    expect(err).toBe('atelier-ops: JOB_ALREADY_FINISHED: the job has already failed\n');
  });

  it('names JOBS_ADDR and exits 69 when jobs cannot be reached', async () => {
    const { exitCode, err } = await cli(['jobs', 'cancel', '019a0000-0000-7000-8000-0000000000ab'], { JOBS_ADDR: '127.0.0.1:1' });
    expect(exitCode).toBe(ExitCode.UNAVAILABLE);
    expect(err).toMatch(/^atelier-ops: JOBS_UNREACHABLE: cannot reach the jobs admin API at 127\.0\.0\.1:1 \(JOBS_ADDR\)/);
  });
});
