import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogV1, commonV1 } from '@atelier/contracts';
import { createSqlPool, type SqlPool } from '@atelier/db';
import { ErrorCode } from '@atelier/errors';
import type { GrpcServerHandle, PromiseClient } from '@atelier/grpc';
import { createLogger } from '@atelier/logging';
import { createTestDatabase, testClient, testSecurity, type TestDatabase, TEST_OPERATOR_ACTOR } from '@atelier/testing';
import type { CatalogChange } from '@atelier/nats';
import { createCatalogOrm, migrateCatalog } from './db/catalog-orm.js';
import { startCatalogServer } from './server.js';

const logger = createLogger({ service: 'catalog-prices-test', level: 'error' });
const PATBOND = '019a0000-0000-7000-8000-000000000201';

let database: TestDatabase;
let pool: SqlPool;
let server: GrpcServerHandle;
let gateway: PromiseClient<catalogV1.CatalogServiceClient>;
const announced: CatalogChange[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  const orm = await createCatalogOrm(database.url, 1);
  await migrateCatalog(orm, database.url);
  await orm.close();
  pool = createSqlPool({ databaseUrl: database.url, max: 4, applicationName: 'catalog-prices-test' });
  server = await startCatalogServer(
    {
      pool,
      announceChange: (change) => void announced.push(change),
      previews: { requireReady: async () => {}, link: async () => undefined },
    },
    { host: '127.0.0.1', port: 0, healthPort: 0, security: await testSecurity('catalog'), logger },
  );
  gateway = await testClient(catalogV1.CatalogServiceClient, `127.0.0.1:${server.port}`, 'gateway');
});

afterAll(async () => {
  gateway?.close();
  await server?.shutdown(100);
  await pool?.end();
  await database?.drop();
});

describe('catalog - model prices', () => {
  it('seeds 0.0023 USD per predict second for the simulator models, served by GetModel and ListCatalogEntries but not GetCatalog', async () => {
    const { model } = await gateway.getModel({ modelId: PATBOND });
    expect(model!.prices).toEqual([
      { unit: 'predict_second', unitPriceMicros: 2300, currency: 'USD', effectiveFrom: new Date('2020-01-01T00:00:00Z') },
    ]);
    const listed = await gateway.listCatalogEntries({ mediaKind: commonV1.MediaKind.UNSPECIFIED });
    expect(listed.models.find((entry) => entry.id === PATBOND)!.prices).toHaveLength(1);
    const catalog = await gateway.getCatalog({ mediaKind: commonV1.MediaKind.IMAGE });
    expect(catalog.models.every((entry) => entry.prices.length === 0)).toBe(true);
  });

  it('adds a price from now or later, announces the model, and never rewrites the past', async () => {
    const from = new Date(Date.now() + 3_600_000);
    const { model } = await gateway.setModelPrice({
      actor: TEST_OPERATOR_ACTOR,
      modelId: PATBOND,
      unit: 'predict_second',
      unitPriceMicros: 2500,
      currency: 'USD',
      effectiveFrom: from,
    });
    expect(model!.prices.map((price) => price.unitPriceMicros)).toEqual([2300, 2500]);
    expect(announced).toContainEqual({ kind: 'model', id: PATBOND });
    const again = gateway.setModelPrice({
      actor: TEST_OPERATOR_ACTOR,
      modelId: PATBOND,
      unit: 'predict_second',
      unitPriceMicros: 1,
      currency: 'USD',
      effectiveFrom: from,
    });
    await expect(again).rejects.toMatchObject({ code: ErrorCode.ALREADY_EXISTS });
    const past = gateway.setModelPrice({
      actor: TEST_OPERATOR_ACTOR,
      modelId: PATBOND,
      unit: 'predict_second',
      unitPriceMicros: 1,
      currency: 'USD',
      effectiveFrom: new Date(Date.now() - 5 * 60_000),
    });
    await expect(past).rejects.toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, message: expect.stringContaining('effective_from') });
  });

  it('refuses an unknown unit, a negative price, another currency and an unknown model, naming the field', async () => {
    const base = { modelId: PATBOND, unit: 'image', unitPriceMicros: 10_000, currency: 'USD' };
    for (const [patch, field] of [
      [{ unit: 'token' }, 'unit'],
      [{ unitPriceMicros: -1 }, 'unit_price_micros'],
      [{ currency: 'usd' }, 'currency'],
      [{ currency: 'EUR' }, 'currency'],
      [{ modelId: 'nope' }, 'model_id'],
    ] as const) {
      await expect(gateway.setModelPrice({ actor: TEST_OPERATOR_ACTOR, ...base, ...patch })).rejects.toMatchObject({
        code: ErrorCode.INVALID_ARGUMENT,
        message: expect.stringContaining(field),
      });
    }
    await expect(
      gateway.setModelPrice({ actor: TEST_OPERATOR_ACTOR, ...base, modelId: '019a0000-0000-7000-8000-0000000000ee' }),
    ).rejects.toMatchObject({
      code: ErrorCode.NOT_FOUND,
    });
  });

  it('lets ops set a price, and refuses jobs', async () => {
    const ops = await testClient(catalogV1.CatalogServiceClient, `127.0.0.1:${server.port}`, 'ops');
    const jobs = await testClient(catalogV1.CatalogServiceClient, `127.0.0.1:${server.port}`, 'jobs');
    try {
      const { model } = await ops.setModelPrice({
        actor: TEST_OPERATOR_ACTOR,
        modelId: PATBOND,
        unit: 'image',
        unitPriceMicros: 40_000,
        currency: 'USD',
      });
      expect(model!.prices.some((price) => price.unit === 'image')).toBe(true);
      await expect(
        jobs.setModelPrice({ actor: TEST_OPERATOR_ACTOR, modelId: PATBOND, unit: 'image', unitPriceMicros: 1, currency: 'USD' }),
      ).rejects.toMatchObject({
        code: ErrorCode.PERMISSION_DENIED,
      });
    } finally {
      ops.close();
      jobs.close();
    }
  });
});
