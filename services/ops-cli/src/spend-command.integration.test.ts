import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './cli.js';
import { ExitCode } from './exit-codes.js';
import { captureIo, startOpsTestEnv, type OpsTestEnv } from './test-support/ops-test-env.js';

let env: OpsTestEnv;
let db: pg.Client;

beforeAll(async () => {
  env = await startOpsTestEnv();
  db = new pg.Client({ connectionString: env.database.url });
  await db.connect();
}, 60_000);

afterAll(async () => {
  await db?.end();
  await env?.stop();
});

async function cli(args: string[]) {
  const io = captureIo(env.cliEnv());
  const exitCode = await runCli(args, io);
  return { exitCode, out: io.out(), err: io.err() };
}

/** A billed vendor call, as RecordProviderCalls writes it (the ledger's own tests cover the write). */
async function billed(model: string, costMicros: number, calledAt: string) {
  await db.query(
    `INSERT INTO jobs.provider_calls (job_id, attempt, call_kind, request_key, vendor_id, provider_code, provider_model, model_version,
       credential_mode, credential_id, outcome, latency_ms, predict_time_ms, images, billable, cost_micros, currency, called_at)
     VALUES (gen_random_uuid(), 1, 'poll', gen_random_uuid()::text, gen_random_uuid()::text, 'sim', $1, '1.0', 'platform_key',
             'platform:0123456789ab', 'ok', 10, 1500, 1, true, $2, 'USD', ${calledAt})`,
    [model, costMicros],
  );
}

describe('spend - today’s vendor spend through the jobs usage API', () => {
  it('says nothing was billed on a fresh platform', async () => {
    const { exitCode, out } = await cli(['spend']);
    expect(exitCode).toBe(ExitCode.OK);
    expect(out).toContain('nothing billed');
  });

  it('prints today’s spend per provider and per model, and leaves yesterday out', async () => {
    await billed('sim-patbond-v1', 3450, 'now()');
    await billed('sim-patbond-v1', 2300, 'now()');
    await billed('sim-pet-art-pro', 1_000_000, 'now()');
    await billed('sim-pet-art-pro', 99_000_000, `date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '1 minute'`);
    const { exitCode, out, err } = await cli(['spend']);
    expect({ exitCode, err }).toEqual({ exitCode: ExitCode.OK, err: '' });
    expect(out).toMatch(/^Per provider\n {2}PROVIDER\s+SPEND\s+PREDICTIONS\s+PREDICT S\s+IMAGES\n {2}sim\s+1\.005750 USD\s+3\s+4\.5\s+3$/m);
    expect(out).toMatch(/^ {2}sim\/sim-patbond-v1@1\.0\s+0\.005750 USD\s+2\s/m);
    expect(out).toMatch(/^ {2}sim\/sim-pet-art-pro@1\.0\s+1\.000000 USD\s+1\s/m);
    expect(out).toMatch(/^Total\n {2}1\.005750 USD$/m);
    const json = JSON.parse((await cli(['spend', '--json'])).out);
    expect(json.totals).toEqual([expect.objectContaining({ currency: 'USD', costMicros: 1_005_750, billablePredictions: 3 })]);
  });
});
