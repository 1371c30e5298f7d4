// Benchmark: the gateway's GET /api/v1/creation/jobs/{id} against a bare Fastify route doing one
// primary-key query on the same Postgres, and every service's resident memory idle and under load.
// Three gateway rows: a succeeded job (the gateway answers it from the terminal views it has seen),
// a queued one as the gateway serves it by default (from the view jobs answered or pushed, at most
// QUEUED_VIEW_FRESH_MS old: one GetJob per 2 s here, whatever the load), and the same queued job on
// a second gateway with QUEUED_VIEW_FRESH_MS=0, where every read goes through jobs.GetJob (gRPC,
// mutual TLS, the statement that also counts the queue position) — the cost of one such read.
//
//   npm run bench:gateway
import { existsSync, readFileSync } from 'node:fs';
import pg from 'pg';
import autocannon from 'autocannon';
import { SignJWT, exportSPKI, generateKeyPair } from 'jose';
import { MobileApi, addUpscaleModel, freePort, startProcess, startTestPlatform, testPng, type ServiceProcess } from '@atelier/testing';
import { ms, printTable } from './bench-kit.js';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
/**
 * Unmeasured load on each route first: its first seconds pay for JIT compilation in every process
 * on the path, which would otherwise land on whichever measured load runs first.
 */
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 2);

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024);
}

async function load(url: string, headers: Record<string, string>, during?: () => void, duration = DURATION_S) {
  const sampler = during ? setInterval(during, 500) : undefined;
  const result = await autocannon({ url, headers, connections: CONNECTIONS, duration });
  clearInterval(sampler);
  return result;
}

const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
const sign = (subject: string, roles: string[] = []) =>
  new SignJWT({ roles })
    .setProtectedHeader({ alg: 'EdDSA' })
    .setSubject(subject)
    .setIssuer('bench')
    .setAudience('atelier-app')
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(privateKey);
const token = await sign('bench-user');
const profile = process.env.BENCH_PROFILE;
const platform = await startTestPlatform({
  workers: 1,
  // No background slots: the image.upscale job below stays queued, so its reads keep going to jobs.
  workerEnv: { WORKER_CONCURRENCY_BACKGROUND: '0' },
  providerEnv: { PROVIDER_SIM_LATENCY_MS: '200' },
  // One user at full speed: a limit far above what it sends, so the limiter's cost is measured, not its refusals.
  gateway: {
    JWT_PUBLIC_KEY: await exportSPKI(publicKey),
    JWT_ISSUER: 'bench',
    JWT_AUDIENCE: 'atelier-app',
    RATE_LIMIT_USER_MAX: '100000000',
  },
  // BENCH_PROFILE=<dir> writes CPU profiles of the gateway, jobs and media.
  nodeArgs: profile
    ? Object.fromEntries(['gateway', 'jobs', 'media'].map((name) => [name, ['--cpu-prof', `--cpu-prof-dir=${profile}/${name}`]]))
    : undefined,
});
let bare: ServiceProcess | undefined;
let admin: pg.Client | undefined;
try {
  const base = platform.gatewayUrl!;
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  // A succeeded image job: the answer carries timings and a fresh presigned output URL.
  const catalog = (await (await fetch(`${base}/api/v1/creation/catalog`, { headers: auth })).json()) as {
    models: { id: string; jobType: string }[];
    styles: { id: string }[];
  };
  // A shape on a background: a flat-colour input gives a flat output, which the worker refuses.
  const photo = await testPng(128, 128);
  const upload = (await (
    await fetch(`${base}/api/v1/media/uploads`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ purpose: 'ai_input', contentType: 'image/png', sizeBytes: photo.length }),
    })
  ).json()) as {
    asset: { id: string };
    upload: { url: string; headers: Record<string, string> };
  };
  await fetch(upload.upload.url, { method: 'PUT', headers: upload.upload.headers, body: photo });
  await fetch(`${base}/api/v1/media/uploads/${upload.asset.id}/complete`, { method: 'POST', headers: auth });
  const created = (await (
    await fetch(`${base}/api/v1/creation/jobs`, {
      method: 'POST',
      headers: { ...auth, 'idempotency-key': 'bench' },
      body: JSON.stringify({
        jobType: 'image.stylize',
        modelId: catalog.models.find((m) => m.jobType === 'image.stylize')!.id,
        styleId: catalog.styles[0]!.id,
        inputAssetId: upload.asset.id,
      }),
    })
  ).json()) as { job: { id: string } };
  if (!created.job) throw new Error(`creating the job failed: ${JSON.stringify(created)}`);
  const jobId = created.job.id;
  for (;;) {
    const { job } = (await (await fetch(`${base}/api/v1/creation/jobs/${jobId}`, { headers: auth })).json()) as { job: { status: string } };
    if (job.status === 'succeeded') break;
    if (job.status === 'failed' || job.status === 'cancelled') throw new Error(`the image job ended ${job.status}: ${JSON.stringify(job)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const queued = (await (
    await fetch(`${base}/api/v1/creation/jobs`, {
      method: 'POST',
      headers: { ...auth, 'idempotency-key': 'bench-queued' },
      body: JSON.stringify({
        jobType: 'image.upscale',
        // The catalog offers no upscale: the test kit's model, added as an operator would.
        modelId: await addUpscaleModel(new MobileApi(base, token), await sign('bench-ops', ['admin'])),
        inputAssetId: upload.asset.id,
        parameters: { scale: 2 },
      }),
    })
  ).json()) as { job: { id: string; status: string } };
  if (queued.job?.status !== 'queued') throw new Error(`creating the queued job failed: ${JSON.stringify(queued)}`);

  const services: [string, ServiceProcess][] = [
    ['gateway', platform.gateway!],
    ['catalog', platform.catalog],
    ['media', platform.media],
    ['jobs', platform.jobs],
    ['community', platform.community!],
    ['worker', platform.workers[0]!],
    ['provider-sim', platform.provider!],
  ];
  await new Promise((resolve) => setTimeout(resolve, 5_000)); // settle: idle means idle
  const idle = Object.fromEntries(services.map(([name, p]) => [name, rssMb(p.child.pid!)]));
  const peak: Record<string, number> = { ...idle };
  const sample = () => {
    for (const [name, p] of services) peak[name] = Math.max(peak[name]!, rssMb(p.child.pid!));
  };

  // Postgres works for every read too, in the backends of this run's database (every service's
  // pool, the bare route's): their CPU is summed as one more process, 'postgres'.
  admin = new pg.Client({ connectionString: platform.database.url });
  await admin.connect();
  const postgresCpu = async () => {
    const { rows } = await admin!.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
    );
    return rows.reduce((sum, { pid }) => sum + (existsSync(`/proc/${pid}`) ? cpuSeconds(pid) : 0), 0);
  };
  /** The load on one URL, and the CPU seconds each service (and Postgres) used meanwhile. */
  const measured = async (url: string, headers: Record<string, string>, pids: [string, number][]) => {
    const cpuBefore = Object.fromEntries(pids.map(([name, pid]) => [name, cpuSeconds(pid)]));
    const postgresBefore = await postgresCpu();
    const result = await load(url, headers, sample);
    const cpu = Object.fromEntries(pids.map(([name, pid]) => [name, cpuSeconds(pid) - cpuBefore[name]!]));
    cpu.postgres = (await postgresCpu()) - postgresBefore;
    return { result, cpu };
  };
  const servicePids = services.map(([name, p]): [string, number] => [name, p.child.pid!]);
  const loadJob = (id: string) => measured(`${base}/api/v1/creation/jobs/${id}`, { authorization: `Bearer ${token}` }, servicePids);
  for (const id of [jobId, queued.job.id])
    await load(`${base}/api/v1/creation/jobs/${id}`, { authorization: `Bearer ${token}` }, sample, WARMUP_S);
  const terminal = await loadJob(jobId);
  const nonTerminal = await loadJob(queued.job.id);
  // The same read, through jobs every time: a gateway that answers no queued view from memory.
  const throughJobsGateway = await platform.startGateway({ QUEUED_VIEW_FRESH_MS: '0' });
  const throughJobsUrl = `http://${throughJobsGateway.address}/api/v1/creation/jobs/${queued.job.id}`;
  // A new process: warmed longer than one route's warm-up, as the first gateway was by then (its CPU
  // per read still falls by a fifth after 2 s of this load).
  await load(throughJobsUrl, { authorization: `Bearer ${token}` }, undefined, 3 * WARMUP_S);
  const throughJobs = await measured(throughJobsUrl, { authorization: `Bearer ${token}` }, [
    ['gateway', throughJobsGateway.child.pid!],
    ['jobs', platform.jobs.child.pid!],
  ]);
  await throughJobsGateway.stop();

  const port = await freePort();
  bare = await startProcess({
    name: 'bare-fastify',
    entry: 'bench/bare-fastify-server.ts',
    port,
    env: { HTTP_PORT: String(port), DATABASE_URL: platform.database.url },
    ready: async (address) => (await fetch(`http://${address}/healthz`)).ok,
  });
  await load(`http://${bare.address}/jobs/${jobId}`, {}, undefined, WARMUP_S);
  const bareRun = await measured(`http://${bare.address}/jobs/${jobId}`, {}, [['bare', bare.child.pid!]]);
  const baseline = bareRun.result;

  const row = (server: string, result: autocannon.Result) => ({
    server,
    'req/s': Math.round(result.requests.average),
    'p50 ms': ms(result.latency.p50),
    'p99 ms': ms(result.latency.p99),
    errors: result.errors + result.non2xx,
  });
  printTable(
    `gateway: GET /api/v1/creation/jobs/{id} vs a bare Fastify PK-query route (${CONNECTIONS} connections, ${DURATION_S} s, 2-core machine)`,
    [
      row('gateway, succeeded job (JWT, validation, terminal view from memory, output URL reused ≤ 30 s)', terminal.result),
      row('gateway, queued job (JWT, validation, the followed view: position ≤ 2 s old, changes pushed)', nonTerminal.result),
      row('gateway, queued job, every read through jobs.GetJob over gRPC (QUEUED_VIEW_FRESH_MS=0)', throughJobs.result),
      row('bare Fastify + one pg query', baseline),
    ],
  );
  for (const [name, { result }] of [
    ['succeeded', terminal],
    ['queued', nonTerminal],
    ['queued, through jobs', throughJobs],
  ] as const) {
    console.log(
      `ratio gateway (${name}) / bare: throughput ${ms(result.requests.average / baseline.requests.average)}, p99 ${ms(result.latency.p99 / baseline.latency.p99)}`,
    );
  }
  // CPU per request from /proc: comparable across runs on a busy machine, unlike req/s.
  const perRequest = (cpu: Record<string, number>, result: autocannon.Result, name: string) =>
    Number(((cpu[name]! * 1000) / Math.max(1, result.requests.total)).toFixed(3));
  console.log(
    `CPU ms per request: succeeded — gateway ${perRequest(terminal.cpu, terminal.result, 'gateway')}, jobs ${perRequest(terminal.cpu, terminal.result, 'jobs')}, postgres ${perRequest(terminal.cpu, terminal.result, 'postgres')}; ` +
      `queued — gateway ${perRequest(nonTerminal.cpu, nonTerminal.result, 'gateway')}, jobs ${perRequest(nonTerminal.cpu, nonTerminal.result, 'jobs')}, postgres ${perRequest(nonTerminal.cpu, nonTerminal.result, 'postgres')}; ` +
      `queued through jobs — gateway ${perRequest(throughJobs.cpu, throughJobs.result, 'gateway')}, jobs ${perRequest(throughJobs.cpu, throughJobs.result, 'jobs')}, postgres ${perRequest(throughJobs.cpu, throughJobs.result, 'postgres')}; ` +
      `bare — fastify ${perRequest(bareRun.cpu, baseline, 'bare')}, postgres ${perRequest(bareRun.cpu, baseline, 'postgres')}`,
  );
  // The goal issue 31 set: a queued job's read at half the bare route's throughput or better. The
  // second row is the same read with every one through jobs (no view from memory), shown beside it.
  const goalRow = (measure: string, result: autocannon.Result) => {
    const ratio = result.requests.average / baseline.requests.average;
    return { measure, ratio: ms(ratio), goal: '≥ 0.5', met: ratio >= 0.5 ? 'yes' : 'no' };
  };
  printTable('goal', [
    goalRow('gateway GET /creation/jobs/{id} of a queued job / bare Fastify + pg', nonTerminal.result),
    goalRow('  the same, every read through jobs (QUEUED_VIEW_FRESH_MS=0) / bare', throughJobs.result),
  ]);
  // Idle again after the loads, and past the worker's output decoder's idle end (WORKER_DECODER_IDLE_MS,
  // 15 s after its last output): what each service holds once nothing happens.
  const idleAgain = Object.fromEntries(services.map(([name, p]) => [name, rssMb(p.child.pid!)]));
  printTable(
    `resident memory (MB): idle 5 s after an image job, peak under the gateway loads, idle after them; CPU seconds used in each ${DURATION_S} s load`,
    services.map(([name]) => ({
      service: name,
      idle: idle[name]!,
      'under load': peak[name]!,
      'idle after': idleAgain[name]!,
      'CPU s, succeeded': ms(terminal.cpu[name]!),
      'CPU s, queued': ms(nonTerminal.cpu[name]!),
    })),
  );
} finally {
  await admin?.end();
  await bare?.stop();
  await platform.stop();
}
