import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogV1, commonV1 } from '@atelier/contracts';
import type { PromiseClient } from '@atelier/grpc';
import {
  createTestDatabase,
  natsTestPrefix,
  startGrpcServiceProcess,
  testClient,
  testIdentityEnv,
  testNatsUrl,
  type ServiceProcess,
  type TestDatabase,
} from '@atelier/testing';
import { runCli } from './cli.js';
import { ExitCode } from './exit-codes.js';
import { captureIo } from './test-support/ops-test-env.js';

/** The catalog service as a process (its own main.ts, migrations and seed) on a database of its own. */
let database: TestDatabase;
let catalog: ServiceProcess;
let app: PromiseClient<catalogV1.CatalogServiceClient>;
let opsEnv: Record<string, string>;

beforeAll(async () => {
  database = await createTestDatabase();
  catalog = await startGrpcServiceProcess('catalog', {
    DATABASE_URL: database.url,
    NATS_URL: testNatsUrl(),
    NATS_STREAM_PREFIX: natsTestPrefix(),
    DB_POOL_MAX: '2',
  });
  // The gateway reads the catalog the app shows: what a disable must hide.
  app = await testClient(catalogV1.CatalogServiceClient, catalog.address, 'gateway', { defaultDeadlineMs: 10_000 });
  opsEnv = { ...(await testIdentityEnv('ops')), CATALOG_ADDR: catalog.address, ATELIER_OPS_TIMEOUT_MS: '3000' };
}, 60_000);

afterAll(async () => {
  app?.close();
  await catalog?.stop();
  await database?.drop();
});

async function cli(args: string[], extraEnv: Record<string, string> = {}) {
  const io = captureIo({ ...opsEnv, ...extraEnv });
  const exitCode = await runCli(args, io);
  return { exitCode, out: io.out(), err: io.err() };
}

async function appStyleCodes(): Promise<string[]> {
  return (await app.getCatalog({ mediaKind: commonV1.MediaKind.IMAGE })).styles.map((s) => s.code);
}

describe('catalog - through the catalog API with the ops identity', () => {
  it('lists every model and style with their ids, and as JSON', async () => {
    const table = await cli(['catalog', 'list']);
    expect(table).toMatchObject({ exitCode: ExitCode.OK, err: '' });
    expect(table.out).toMatch(/^Models\n {2}ID\s+CODE\s+KIND\s+ENABLED\s+ORDER\s+JOB TYPE\s+PROVIDER\s+NAME$/m);
    expect(table.out).toMatch(/^Styles\n {2}ID\s+CODE\s+KIND\s+ENABLED\s+ORDER\s+TITLE$/m);
    const { models, styles } = JSON.parse((await cli(['catalog', 'list', '--json'])).out);
    expect(models.length).toBeGreaterThan(0);
    expect(styles.length).toBeGreaterThan(0);
    expect(styles[0]).toMatchObject({ mediaKind: 'image', enabled: true });
    expect(table.out).toContain(`  ${styles[0].id}  ${styles[0].code}`);
    expect(JSON.parse((await cli(['catalog', 'list', '--kind', 'video', '--json'])).out)).toEqual({ models: [], styles: [] });
  });

  it('disables a style: the app no longer lists it, catalog list still does; enable brings it back', async () => {
    const { styles } = JSON.parse((await cli(['catalog', 'list', '--json'])).out);
    const style = styles[0];
    expect(await appStyleCodes()).toContain(style.code);

    const disabled = await cli(['catalog', 'disable', 'style', style.id]);
    expect(disabled).toMatchObject({ exitCode: ExitCode.OK, err: '' });
    expect(disabled.out).toBe(`style ${style.code} (${style.id}) is disabled: the app no longer lists it; existing jobs keep it\n`);
    expect(await appStyleCodes()).not.toContain(style.code);
    const listed = JSON.parse((await cli(['catalog', 'list', '--json'])).out);
    expect(listed.styles.find((s: { id: string }) => s.id === style.id)).toMatchObject({ enabled: false });
    expect((await cli(['catalog', 'list'])).out).toMatch(/; [1-9]\d* disabled \(hidden from the app\)\.$/m);

    // Idempotent, as catalog is.
    expect((await cli(['catalog', 'disable', 'style', style.id])).exitCode).toBe(ExitCode.OK);
    const enabled = await cli(['catalog', 'enable', 'style', style.id]);
    expect(enabled.out).toBe(`style ${style.code} (${style.id}) is enabled: the app lists it again\n`);
    expect(await appStyleCodes()).toContain(style.code);
  });

  it('enables and disables a model', async () => {
    const { models } = JSON.parse((await cli(['catalog', 'list', '--json'])).out);
    const model = models[0];
    expect((await cli(['catalog', 'disable', 'model', model.id])).out).toContain(`model ${model.code} (${model.id}) is disabled`);
    expect((await app.getModel({ modelId: model.id })).model).toMatchObject({ enabled: false });
    expect((await cli(['catalog', 'enable', 'model', model.id])).exitCode).toBe(ExitCode.OK);
    expect((await app.getModel({ modelId: model.id })).model).toMatchObject({ enabled: true });
  });

  it('exits 1 for an unknown entry', async () => {
    const { exitCode, err } = await cli(['catalog', 'disable', 'style', '00000000-0000-4000-8000-000000000000']);
    expect(exitCode).toBe(ExitCode.FAILURE);
    expect(err).toMatch(/^atelier-ops: \S*NOT_FOUND: style not found/);
  });

  it('exits 77 with another identity’s certificate, 69 naming CATALOG_ADDR when catalog cannot be reached', async () => {
    const jobs = await testIdentityEnv('jobs');
    const wrong = await cli(['catalog', 'list'], {
      GRPC_TLS_CERT_FILE: jobs.GRPC_TLS_CERT_FILE,
      GRPC_TLS_KEY_FILE: jobs.GRPC_TLS_KEY_FILE,
    });
    expect(wrong.exitCode).toBe(ExitCode.NO_PERMISSION);
    expect(wrong.err).toContain('service jobs may not call /atelier.catalog.v1.CatalogService/ListCatalogEntries');

    const missing = await cli(['catalog', 'list'], { GRPC_TLS_CERT_FILE: '', GRPC_TLS_KEY_FILE: '' });
    expect(missing.exitCode).toBe(ExitCode.FAILURE);
    expect(missing.err).toContain('atelier-ops: OPERATOR_CERTIFICATE_MISSING: the catalog API needs an operator certificate');

    const down = await cli(['catalog', 'list'], { CATALOG_ADDR: '127.0.0.1:1' });
    expect(down.exitCode).toBe(ExitCode.UNAVAILABLE);
    expect(down.err).toMatch(
      /^atelier-ops: CATALOG_UNREACHABLE: cannot reach the catalog API at 127\.0\.0\.1:1 \(CATALOG_ADDR\): connect ECONNREFUSED.*port-forward svc\/<release>-catalog 50051:50051/,
    );
  });
});
