import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogV1, commonV1 } from '@atelier/contracts';
import { ErrorCode, InvalidArgumentError } from '@atelier/errors';
import type { GrpcServerHandle, PromiseClient } from '@atelier/grpc';
import { createLogger } from '@atelier/logging';
import { catalogChangesSubject, connectNats, parseCatalogChange, type CatalogChange, type NatsConnection } from '@atelier/nats';
import {
  checkHealth,
  createTestDatabase,
  freePort,
  listReflectedServices,
  natsTestPrefix,
  testClient,
  testNatsUrl,
  testSecurity,
  type TestDatabase,
  TEST_OPERATOR_ACTOR,
} from '@atelier/testing';
import { createSqlPool, type SqlPool } from '@atelier/db';
import { openChangeNotices, type ChangeNotices } from './peers/change-notices.js';
import type { PreviewAssets } from './peers/preview-assets.js';
import { createOrm, migrate } from '@atelier/orm';
import { catalogEntities } from './db/entities/index.js';
import { CATALOG_SCHEMA, catalogMigrations } from './db/migrations/index.js';
import { createCatalogOrm, migrateCatalog } from './db/catalog-orm.js';
import { CATALOG_SERVICE_NAME, startCatalogServer } from './server.js';

const { MediaKind } = commonV1;
const logger = createLogger({ service: 'catalog-test', level: 'error' });

/**
 * Media as the catalog sees it, with one ready preview image (the real media and its refusals are
 * exercised end to end in services/gateway/src/gateway.e2e.test.ts).
 */
const READY_PREVIEW = '019a0000-0000-7000-8000-00000000f001';
const previews: PreviewAssets = {
  async requireReady(assetId) {
    if (assetId !== READY_PREVIEW) throw new InvalidArgumentError('preview_asset_id', `no media asset ${assetId}`);
  },
  async link(assetId) {
    return assetId === READY_PREVIEW ? { url: `http://s3.test/${assetId}`, expiresAt: undefined, contentType: 'image/png' } : undefined;
  },
};

let database: TestDatabase;
let pool: SqlPool;
let server: GrpcServerHandle;
let client: PromiseClient<catalogV1.CatalogServiceClient>;
let address: string;
let notices: ChangeNotices;
let listener: NatsConnection;
const natsPrefix = natsTestPrefix();
/** Every change notice heard on this run's subject, in order. */
const heard: (CatalogChange | undefined)[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  const orm = await createCatalogOrm(database.url, 1);
  await migrateCatalog(orm, database.url);
  await orm.close();
  pool = createSqlPool({ databaseUrl: database.url, max: 4, applicationName: 'catalog-test' });
  listener = await connectNats({ servers: testNatsUrl(), name: 'catalog-test-listener' });
  listener.subscribe(catalogChangesSubject(natsPrefix), {
    callback: (_error, message) => void heard.push(parseCatalogChange(message.data)),
  });
  await listener.flush();
  notices = openChangeNotices({ NATS_URL: testNatsUrl(), NATS_STREAM_PREFIX: natsPrefix }, logger);
  await notices.link.ready();
  server = await startCatalogServer(
    { pool, announceChange: notices.announce, previews },
    { host: '127.0.0.1', port: 0, healthPort: 0, reflection: true, security: await testSecurity('catalog'), logger },
  );
  address = `127.0.0.1:${server.port}`;
  client = await testClient(catalogV1.CatalogServiceClient, address, 'gateway');
});

afterAll(async () => {
  client?.close();
  await server?.shutdown(100);
  await notices?.close();
  await listener?.close();
  await pool?.end();
  await database?.drop();
});

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'the call should have been refused').toBeDefined();
  return error as { code: string; reason?: string; field?: string; message: string };
}

describe('catalog - seeded catalog over gRPC', () => {
  it("serves exactly the app's models and styles, with its codes, names and order, enabled and without previews", async () => {
    const { models, styles } = await client.getCatalog({ mediaKind: MediaKind.IMAGE });
    expect(models.map((m) => [m.code, m.displayName, m.displayNameI18n, m.sortOrder])).toEqual([
      ['patbond-v1', 'Patbond-V1', { 'zh-CN': 'Patbond-V1' }, 10],
      ['pet-art-pro', 'Pet-Art Pro', { 'zh-CN': 'Pet-Art Pro' }, 20],
      ['cute-motion', 'Cute Motion', { 'zh-CN': 'Cute Motion' }, 30],
    ]);
    expect(styles.map((s) => [s.code, s.title, s.titleI18n, s.subtitle, s.subtitleI18n, s.sortOrder])).toEqual([
      ['healing', 'Healing Anime', { 'zh-CN': '治愈动画' }, 'Healing', { 'zh-CN': 'Healing' }, 10],
      ['3d', '3D Cartoon', { 'zh-CN': '3D 卡通' }, '3D Cartoon', { 'zh-CN': '3D Cartoon' }, 20],
      ['comic', 'Comic', { 'zh-CN': '漫画风' }, 'Comic', { 'zh-CN': 'Comic' }, 30],
      ['watercolor', 'Watercolor', { 'zh-CN': '水彩' }, 'Watercolor', { 'zh-CN': 'Watercolor' }, 40],
    ]);
    for (const entry of [...models, ...styles]) {
      expect(entry.enabled).toBe(true);
      expect(entry.mediaKind).toBe(MediaKind.IMAGE);
    }
    for (const style of styles) {
      expect(style.previewAssetId).toBeUndefined();
      expect(style.promptPreset).not.toBe('');
    }
    for (const model of models) {
      expect(model).toMatchObject({ providerCode: 'sim', jobType: 'image.stylize', defaultParameters: { strength: expect.any(Number) } });
    }
    // Each model asks the vendor for a model of its own.
    expect(new Set(models.map((m) => m.providerModel)).size).toBe(models.length);
  });

  it('keeps the entries 0002 seeded, disabled: the ids jobs hold still resolve', async () => {
    const { models, styles } = await client.listCatalogEntries({ mediaKind: MediaKind.IMAGE });
    const disabled = (entries: { code: string; enabled: boolean }[]) => entries.filter((e) => !e.enabled).map((e) => e.code);
    expect(disabled(models)).toEqual(expect.arrayContaining(['atelier-stylizer', 'atelier-stylizer-fast', 'atelier-upscaler']));
    expect(disabled(styles)).toEqual(expect.arrayContaining(['pixel-art', 'sketch', 'pop-art', 'vintage']));
    const upscaler = (await client.getModel({ modelId: '019a0000-0000-7000-8000-000000000003' })).model!;
    expect(upscaler).toMatchObject({ code: 'atelier-upscaler', jobType: 'image.upscale', enabled: false });
    // 0002's watercolor is the app's watercolor now, under the same id.
    expect((await client.getStyle({ styleId: '019a0000-0000-7000-8000-000000000101' })).style).toMatchObject({
      code: 'watercolor',
      subtitle: 'Watercolor',
      enabled: true,
    });
  });

  it('has no video entries yet', async () => {
    expect(await client.getCatalog({ mediaKind: MediaKind.VIDEO })).toEqual({ models: [], styles: [] });
  });

  it('breaks sort_order ties by id', async () => {
    const a = await client.upsertStyle({
      actor: TEST_OPERATOR_ACTOR,
      code: 'tie-a',
      mediaKind: MediaKind.IMAGE,
      title: 'Tie A',
      subtitle: '',
      promptPreset: '',
      sortOrder: 1000,
    });
    const b = await client.upsertStyle({
      actor: TEST_OPERATOR_ACTOR,
      code: 'tie-b',
      mediaKind: MediaKind.IMAGE,
      title: 'Tie B',
      subtitle: '',
      promptPreset: '',
      sortOrder: 1000,
    });
    const { styles } = await client.getCatalog({ mediaKind: MediaKind.IMAGE });
    const tied = styles.filter((s) => s.sortOrder === 1000).map((s) => s.id);
    expect(tied).toEqual([a.style!.id, b.style!.id].sort());
  });
});

describe('catalog - lookups by id', () => {
  it('returns a model and a style by id, including their flags and kinds', async () => {
    const { models, styles } = await client.getCatalog({ mediaKind: MediaKind.IMAGE });
    const model = (await client.getModel({ modelId: models[0]!.id })).model!;
    // GetModel adds the price history (model-prices.integration.test.ts), the users' read does not.
    expect({ ...model, prices: [] }).toEqual(models[0]);
    const style = (await client.getStyle({ styleId: styles[0]!.id })).style!;
    expect(style).toEqual(styles[0]);
  });

  it('answers NOT_FOUND for an unknown id', async () => {
    const modelError = await refusal(client.getModel({ modelId: '019a0000-0000-7000-8000-0000000000ff' }));
    expect(modelError).toMatchObject({ code: ErrorCode.NOT_FOUND, reason: 'MODEL_NOT_FOUND' });
    const styleError = await refusal(client.getStyle({ styleId: '019a0000-0000-7000-8000-0000000000ff' }));
    expect(styleError).toMatchObject({ code: ErrorCode.NOT_FOUND, reason: 'STYLE_NOT_FOUND' });
  });

  it('answers INVALID_ARGUMENT naming the field for a malformed id or kind', async () => {
    expect(await refusal(client.getModel({ modelId: 'abc' }))).toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, field: 'model_id' });
    expect(await refusal(client.getStyle({ styleId: '' }))).toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, field: 'style_id' });
    expect(await refusal(client.getCatalog({ mediaKind: MediaKind.UNSPECIFIED }))).toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      field: 'media_kind',
    });
  });
});

describe('catalog - operator upsert and enable/disable', () => {
  const baseModel = {
    code: 'ops-model',
    mediaKind: MediaKind.IMAGE,
    displayName: 'Ops Model',
    providerCode: 'sim',
    providerModel: 'sim-ops',
    modelVersion: '1',
    jobType: 'image.stylize',
    sortOrder: 500,
    defaultParameters: { steps: 20 },
    credentialModes: [],
  };

  it('creates an entry, then updates it in place by (code, media_kind)', async () => {
    const created = await client.upsertModel({ ...baseModel, actor: TEST_OPERATOR_ACTOR });
    expect(created.created).toBe(true);
    expect(created.model).toMatchObject({ code: 'ops-model', enabled: true, modelVersion: '1', defaultParameters: { steps: 20 } });

    const updated = await client.upsertModel({
      actor: TEST_OPERATOR_ACTOR,
      ...baseModel,
      displayName: 'Ops Model v2',
      modelVersion: '2',
      defaultParameters: { steps: 30 },
    });
    expect(updated.created).toBe(false);
    expect(updated.model!.id).toBe(created.model!.id);
    expect(updated.model).toMatchObject({
      displayName: 'Ops Model v2',
      modelVersion: '2',
      defaultParameters: { steps: 30 },
      enabled: true,
    });
    expect(updated.model!.updatedAt!.getTime()).toBeGreaterThanOrEqual(created.model!.updatedAt!.getTime());

    const { models } = await client.getCatalog({ mediaKind: MediaKind.IMAGE });
    expect(models.filter((m) => m.code === 'ops-model')).toHaveLength(1);
  });

  it('keeps the same code apart per media kind', async () => {
    const video = await client.upsertModel({ actor: TEST_OPERATOR_ACTOR, ...baseModel, mediaKind: MediaKind.VIDEO });
    expect(video.created).toBe(true);
    const { models } = await client.getCatalog({ mediaKind: MediaKind.VIDEO });
    expect(models.map((m) => m.code)).toEqual(['ops-model']);
  });

  it('hides a disabled model and style from the catalog but not from lookups and operator lists', async () => {
    const { models, styles } = await client.getCatalog({ mediaKind: MediaKind.IMAGE });
    const model = models.find((m) => m.code === 'cute-motion')!;
    const style = styles.find((s) => s.code === 'comic')!;

    expect((await client.setModelEnabled({ actor: TEST_OPERATOR_ACTOR, modelId: model.id, enabled: false })).model!.enabled).toBe(false);
    expect((await client.setStyleEnabled({ actor: TEST_OPERATOR_ACTOR, styleId: style.id, enabled: false })).style!.enabled).toBe(false);

    const after = await client.getCatalog({ mediaKind: MediaKind.IMAGE });
    expect(after.models.map((m) => m.id)).not.toContain(model.id);
    expect(after.styles.map((s) => s.id)).not.toContain(style.id);
    expect((await client.getModel({ modelId: model.id })).model!.enabled).toBe(false);

    const all = await client.listCatalogEntries({ mediaKind: MediaKind.UNSPECIFIED });
    expect(all.models.find((m) => m.id === model.id)?.enabled).toBe(false);
    expect(all.styles.find((s) => s.id === style.id)?.enabled).toBe(false);

    // An upsert without `enabled` keeps the entry disabled; re-enabling brings it back.
    await client.upsertStyle({
      actor: TEST_OPERATOR_ACTOR,
      code: 'comic',
      mediaKind: MediaKind.IMAGE,
      title: 'Comic',
      subtitle: 'Comic',
      promptPreset: style.promptPreset,
      sortOrder: 30,
    });
    expect((await client.getStyle({ styleId: style.id })).style!.enabled).toBe(false);
    await client.setStyleEnabled({ actor: TEST_OPERATOR_ACTOR, styleId: style.id, enabled: true });
    await client.setModelEnabled({ actor: TEST_OPERATOR_ACTOR, modelId: model.id, enabled: true });
    const restored = await client.getCatalog({ mediaKind: MediaKind.IMAGE });
    expect(restored.styles.map((s) => s.id)).toContain(style.id);
    expect(restored.models.map((m) => m.id)).toContain(model.id);
  });

  it('leaves updated_at alone when enable/disable changes nothing', async () => {
    const { models } = await client.getCatalog({ mediaKind: MediaKind.IMAGE });
    const before = models[0]!;
    const after = (await client.setModelEnabled({ actor: TEST_OPERATOR_ACTOR, modelId: before.id, enabled: true })).model!;
    expect(after.updatedAt).toEqual(before.updatedAt);
  });

  it('refuses invalid entries naming the field, and writes nothing', async () => {
    const before = await client.listCatalogEntries({ mediaKind: MediaKind.UNSPECIFIED });
    expect(await refusal(client.upsertModel({ actor: TEST_OPERATOR_ACTOR, ...baseModel, code: 'Bad Code' }))).toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      field: 'code',
    });
    expect(
      await refusal(client.upsertModel({ actor: TEST_OPERATOR_ACTOR, ...baseModel, code: 'fine-code', mediaKind: MediaKind.UNSPECIFIED })),
    ).toMatchObject({
      field: 'media_kind',
    });
    expect(
      await refusal(client.upsertModel({ actor: TEST_OPERATOR_ACTOR, ...baseModel, code: 'fine-code', displayName: ' ' })),
    ).toMatchObject({
      field: 'display_name',
    });
    expect(
      await refusal(
        client.upsertStyle({
          actor: TEST_OPERATOR_ACTOR,
          code: 'fine-style',
          mediaKind: MediaKind.IMAGE,
          title: 'T',
          subtitle: '',
          promptPreset: '',
          sortOrder: 0,
          previewAssetId: 'x',
        }),
      ),
    ).toMatchObject({ field: 'preview_asset_id' });
    expect(await client.listCatalogEntries({ mediaKind: MediaKind.UNSPECIFIED })).toEqual(before);
  });

  it('answers NOT_FOUND when enabling an unknown entry', async () => {
    const error = await refusal(
      client.setModelEnabled({ actor: TEST_OPERATOR_ACTOR, modelId: '019a0000-0000-7000-8000-0000000000ee', enabled: true }),
    );
    expect(error).toMatchObject({ code: ErrorCode.NOT_FOUND });
  });

  it('creates exactly one entry when the same new code is upserted concurrently', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        client.upsertModel({ actor: TEST_OPERATOR_ACTOR, ...baseModel, code: 'race-model', displayName: `Race ${i}` }),
      ),
    );
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.model!.id)).size).toBe(1);
  });
});

describe('catalog - localized names', () => {
  const model = {
    code: 'i18n-model',
    mediaKind: MediaKind.IMAGE,
    displayName: 'Localized Model',
    providerCode: 'sim',
    providerModel: 'sim-i18n',
    modelVersion: '1',
    jobType: 'image.stylize',
    sortOrder: 600,
    defaultParameters: {},
    credentialModes: [],
  };
  const style = {
    code: 'i18n-style',
    mediaKind: MediaKind.IMAGE,
    title: 'Ink',
    subtitle: 'Brush and ink',
    promptPreset: '',
    sortOrder: 600,
  };

  it('keeps the Simplified Chinese names 0003 seeded on the entries it seeded', async () => {
    const { models, styles } = await client.listCatalogEntries({ mediaKind: MediaKind.IMAGE });
    expect(models.find((m) => m.code === 'atelier-stylizer')!.displayNameI18n).toEqual({ 'zh-CN': 'Atelier 风格化' });
    expect(styles.find((s) => s.code === 'sketch')).toMatchObject({
      titleI18n: { 'zh-CN': '铅笔素描' },
      subtitleI18n: { 'zh-CN': '纸上的石墨笔触' },
    });
  });

  it('stores the translations an upsert gives, keeps them when it gives none, and replaces them when it gives some', async () => {
    const created = await client.upsertModel({
      actor: TEST_OPERATOR_ACTOR,
      ...model,
      displayNameI18n: { values: { 'zh-CN': ' 本地化模型 ' } },
    });
    expect(created.model!.displayNameI18n).toEqual({ 'zh-CN': '本地化模型' });
    const kept = await client.upsertModel({ actor: TEST_OPERATOR_ACTOR, ...model, displayName: 'Localized Model v2' });
    expect(kept.model).toMatchObject({ displayName: 'Localized Model v2', displayNameI18n: { 'zh-CN': '本地化模型' } });
    const cleared = await client.upsertModel({ actor: TEST_OPERATOR_ACTOR, ...model, displayNameI18n: { values: { 'zh-CN': '' } } });
    expect(cleared.model!.displayNameI18n).toEqual({});

    const styled = await client.upsertStyle({
      actor: TEST_OPERATOR_ACTOR,
      ...style,
      titleI18n: { values: { 'zh-CN': '水墨' } },
      subtitleI18n: { values: { 'zh-CN': '笔与墨' } },
    });
    expect(styled.style).toMatchObject({ titleI18n: { 'zh-CN': '水墨' }, subtitleI18n: { 'zh-CN': '笔与墨' } });
    const restyled = await client.upsertStyle({ actor: TEST_OPERATOR_ACTOR, ...style, subtitleI18n: { values: {} } });
    expect(restyled.style).toMatchObject({ titleI18n: { 'zh-CN': '水墨' }, subtitleI18n: {} });
  });

  it('refuses an unknown language or a translation over the bound, naming the field, and writes nothing', async () => {
    const before = await client.listCatalogEntries({ mediaKind: MediaKind.UNSPECIFIED });
    expect(
      await refusal(
        client.upsertModel({ actor: TEST_OPERATOR_ACTOR, ...model, code: 'i18n-bad', displayNameI18n: { values: { fr: 'Modèle' } } }),
      ),
    ).toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      field: 'display_name_i18n',
    });
    expect(
      await refusal(
        client.upsertStyle({ actor: TEST_OPERATOR_ACTOR, ...style, code: 'i18n-bad', titleI18n: { values: { 'zh-CN': '长'.repeat(81) } } }),
      ),
    ).toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, field: 'title_i18n.zh-CN' });
    expect(
      await refusal(
        client.upsertStyle({ actor: TEST_OPERATOR_ACTOR, ...style, code: 'i18n-bad', subtitleI18n: { values: { 'zh-CN': 'a\u0000b' } } }),
      ),
    ).toMatchObject({ field: 'subtitle_i18n.zh-CN' });
    expect(await client.listCatalogEntries({ mediaKind: MediaKind.UNSPECIFIED })).toEqual(before);
  });
});

describe('catalog - entries the platform can use', () => {
  const baseStyle = { mediaKind: MediaKind.IMAGE, title: 'Preview', subtitle: '', promptPreset: 'as a preview', sortOrder: 5 };

  it('refuses a model of an unknown job type or provider code with INVALID_ARGUMENT naming the field', async () => {
    const model = {
      code: 'unknown-things',
      mediaKind: MediaKind.IMAGE,
      displayName: 'Unknown',
      providerCode: 'sim',
      providerModel: 'm',
      modelVersion: '1',
      jobType: 'image.stylize',
      sortOrder: 1,
      defaultParameters: {},
      credentialModes: [],
    };
    expect(await refusal(client.upsertModel({ actor: TEST_OPERATOR_ACTOR, ...model, jobType: 'video.stylize' }))).toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      field: 'job_type',
    });
    expect(await refusal(client.upsertModel({ actor: TEST_OPERATOR_ACTOR, ...model, providerCode: 'acme' }))).toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      field: 'provider_code',
    });
    const { models } = await client.listCatalogEntries({ mediaKind: MediaKind.UNSPECIFIED });
    expect(models.some((m) => m.code === 'unknown-things')).toBe(false);
  });

  it('refuses a style whose preview is no ready media asset, and links the preview of an enabled one only', async () => {
    expect(
      await refusal(
        client.upsertStyle({
          actor: TEST_OPERATOR_ACTOR,
          ...baseStyle,
          code: 'no-preview',
          previewAssetId: '019a0000-0000-7000-8000-00000000f0ff',
        }),
      ),
    ).toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, field: 'preview_asset_id' });

    const { style } = await client.upsertStyle({
      actor: TEST_OPERATOR_ACTOR,
      ...baseStyle,
      code: 'with-preview',
      previewAssetId: READY_PREVIEW,
    });
    expect(style!.previewAssetId).toBe(READY_PREVIEW);
    expect(await client.getStylePreview({ styleId: style!.id })).toMatchObject({
      downloadUrl: `http://s3.test/${READY_PREVIEW}`,
      contentType: 'image/png',
    });

    await client.setStyleEnabled({ actor: TEST_OPERATOR_ACTOR, styleId: style!.id, enabled: false });
    expect(await refusal(client.getStylePreview({ styleId: style!.id }))).toMatchObject({ code: ErrorCode.NOT_FOUND });
    const plain = (await client.getCatalog({ mediaKind: MediaKind.IMAGE })).styles.find((s) => !s.previewAssetId)!;
    expect(await refusal(client.getStylePreview({ styleId: plain.id }))).toMatchObject({ code: ErrorCode.NOT_FOUND });
  });
});

describe('catalog - change notices', () => {
  it('announces each committed upsert and enable/disable on the subject of its prefix, with the kind and id', async () => {
    heard.length = 0;
    const { model } = await client.upsertModel({
      actor: TEST_OPERATOR_ACTOR,
      code: 'notice-model',
      mediaKind: MediaKind.IMAGE,
      displayName: 'Notice Model',
      providerCode: 'sim',
      providerModel: 'sim-notice',
      modelVersion: '1',
      jobType: 'image.stylize',
      sortOrder: 900,
      defaultParameters: {},
      credentialModes: [],
    });
    const { style } = await client.upsertStyle({
      actor: TEST_OPERATOR_ACTOR,
      code: 'notice-style',
      mediaKind: MediaKind.IMAGE,
      title: 'Notice',
      subtitle: '',
      promptPreset: 'notice',
      sortOrder: 900,
    });
    await client.setModelEnabled({ actor: TEST_OPERATOR_ACTOR, modelId: model!.id, enabled: false });
    await client.setStyleEnabled({ actor: TEST_OPERATOR_ACTOR, styleId: style!.id, enabled: false });
    // Only this test's entries (and any notice that did not parse): the previous test's concurrent
    // upserts may still be announcing.
    const ours = new Set([model!.id, style!.id]);
    await expect
      .poll(() => heard.filter((notice) => notice === undefined || ours.has(notice.id)))
      .toEqual([
        { kind: 'model', id: model!.id },
        { kind: 'style', id: style!.id },
        { kind: 'model', id: model!.id },
        { kind: 'style', id: style!.id },
      ]);
  });

  it('announces nothing for a refused write', async () => {
    heard.length = 0;
    await refusal(client.setModelEnabled({ actor: TEST_OPERATOR_ACTOR, modelId: '00000000-0000-7000-8000-000000000000', enabled: false }));
    await refusal(
      client.upsertStyle({
        actor: TEST_OPERATOR_ACTOR,
        code: '',
        mediaKind: MediaKind.IMAGE,
        title: 'x',
        subtitle: '',
        promptPreset: '',
        sortOrder: 1,
      }),
    );
    await listener.flush();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(heard).toEqual([]);
  });

  it('serves reads and writes while NATS cannot be reached', async () => {
    const away = openChangeNotices({ NATS_URL: `nats://127.0.0.1:${await freePort()}`, NATS_STREAM_PREFIX: natsPrefix }, logger);
    const offline = await startCatalogServer(
      { pool, announceChange: away.announce, previews },
      { host: '127.0.0.1', port: 0, healthPort: 0, security: await testSecurity('catalog'), logger },
    );
    const offlineClient = await testClient(catalogV1.CatalogServiceClient, `127.0.0.1:${offline.port}`, 'gateway');
    try {
      const { models } = await offlineClient.getCatalog({ mediaKind: MediaKind.IMAGE });
      const model = models[0]!;
      expect((await offlineClient.setModelEnabled({ actor: TEST_OPERATOR_ACTOR, modelId: model.id, enabled: false })).model!.enabled).toBe(
        false,
      );
      expect((await offlineClient.setModelEnabled({ actor: TEST_OPERATOR_ACTOR, modelId: model.id, enabled: true })).model!.enabled).toBe(
        true,
      );
    } finally {
      offlineClient.close();
      await offline.shutdown(100);
      await away.close();
    }
  });
});

describe('catalog - the database guards its own invariants', () => {
  it('refuses rows that break the CHECK and UNIQUE constraints even through raw SQL', async () => {
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    try {
      const insert = (code: string, kind: string) =>
        db.query(`INSERT INTO catalog.styles (id, code, title, media_kind) VALUES (gen_random_uuid(), $1, 'T', $2)`, [code, kind]);
      await expect(insert('ok-code', 'audio')).rejects.toMatchObject({ code: '23514', constraint: 'styles_media_kind_known' });
      await expect(insert('Not OK', 'image')).rejects.toMatchObject({ code: '23514', constraint: 'styles_code_format' });
      await expect(insert('watercolor', 'image')).rejects.toMatchObject({ code: '23505', constraint: 'styles_code_media_kind_key' });
    } finally {
      await db.end();
    }
  });
});

describe('catalog - health and reflection', () => {
  it('answers grpc.health.v1 SERVING on its plaintext health port', async () => {
    expect(await checkHealth(`127.0.0.1:${server.healthPort}`)).toBe('SERVING');
    expect(await checkHealth(`127.0.0.1:${server.healthPort}`, CATALOG_SERVICE_NAME)).toBe('SERVING');
  });

  it('lists atelier.catalog.v1.CatalogService through reflection', async () => {
    expect(await listReflectedServices(address, await testSecurity('gateway'), 'catalog')).toEqual([CATALOG_SERVICE_NAME]);
  });
});

describe('catalog - who may call what', () => {
  it('lets jobs read a model but not edit the catalog, and refuses the worker', async () => {
    const jobs = await testClient(catalogV1.CatalogServiceClient, address, 'jobs');
    const worker = await testClient(catalogV1.CatalogServiceClient, address, 'worker');
    try {
      await expect(jobs.getModel({ modelId: '00000000-0000-4000-8000-000000000000' })).rejects.toMatchObject({ code: ErrorCode.NOT_FOUND });
      await expect(jobs.setModelEnabled(catalogV1.SetModelEnabledRequest.fromPartial({}))).rejects.toMatchObject({
        code: ErrorCode.PERMISSION_DENIED,
      });
      await expect(worker.getModel({ modelId: '00000000-0000-4000-8000-000000000000' })).rejects.toMatchObject({
        code: ErrorCode.PERMISSION_DENIED,
      });
    } finally {
      jobs.close();
      worker.close();
    }
  });
});

describe('catalog - the operator CLI identity', () => {
  it('lets ops list every entry and enable or disable one, but not upsert or read the app catalog', async () => {
    const ops = await testClient(catalogV1.CatalogServiceClient, address, 'ops');
    try {
      const { models } = await ops.listCatalogEntries({ mediaKind: MediaKind.UNSPECIFIED });
      expect(models.length).toBeGreaterThan(0);
      const model = models[0]!;
      expect((await ops.setModelEnabled({ actor: TEST_OPERATOR_ACTOR, modelId: model.id, enabled: model.enabled })).model).toMatchObject({
        id: model.id,
      });
      await expect(
        ops.setStyleEnabled({ actor: TEST_OPERATOR_ACTOR, styleId: '00000000-0000-4000-8000-000000000000', enabled: true }),
      ).rejects.toMatchObject({
        code: ErrorCode.NOT_FOUND,
      });
      await expect(ops.upsertModel(catalogV1.UpsertModelRequest.fromPartial({}))).rejects.toMatchObject({
        code: ErrorCode.PERMISSION_DENIED,
      });
      await expect(ops.getCatalog({ mediaKind: MediaKind.IMAGE })).rejects.toMatchObject({ code: ErrorCode.PERMISSION_DENIED });
    } finally {
      ops.close();
    }
  });
});

describe('catalog - migrations', () => {
  async function schemaSnapshot(db: pg.Client, schema: string) {
    const { rows: columns } = await db.query(
      `SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
        WHERE table_schema = $1 ORDER BY table_name, ordinal_position`,
      [schema],
    );
    const { rows: constraints } = await db.query(
      `SELECT conname, pg_get_constraintdef(c.oid) AS def FROM pg_constraint c
         JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = $1 ORDER BY conname`,
      [schema],
    );
    const { rows: indexes } = await db.query(`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 ORDER BY indexname`, [
      schema,
    ]);
    return { columns, constraints, indexes };
  }

  it('changes nothing when run twice, and touches no other schema', async () => {
    const fresh = await createTestDatabase();
    const db = new pg.Client({ connectionString: fresh.url });
    await db.connect();
    const freshOrm = await createCatalogOrm(fresh.url, 2);
    try {
      // Another service's schema, already present.
      await db.query(
        `CREATE SCHEMA media; CREATE TABLE media.assets (id uuid PRIMARY KEY, note text); INSERT INTO media.assets VALUES (gen_random_uuid(), 'keep me')`,
      );
      const mediaBefore = await schemaSnapshot(db, 'media');

      expect(await migrateCatalog(freshOrm, fresh.url)).toEqual([
        '0001-catalog-baseline',
        '0002-catalog-seed',
        '0003-catalog-localized-names',
        '0004-catalog-app-seed',
        '0005-catalog-model-prices',
        '0006-model-credential-modes',
        '0007-operator-audit',
      ]);
      const catalogAfterFirst = await schemaSnapshot(db, 'catalog');
      const rowsAfterFirst = await db.query('SELECT * FROM catalog.models ORDER BY id');

      expect(await migrateCatalog(freshOrm, fresh.url)).toEqual([]);
      expect(await schemaSnapshot(db, 'catalog')).toEqual(catalogAfterFirst);
      expect((await db.query('SELECT * FROM catalog.models ORDER BY id')).rows).toEqual(rowsAfterFirst.rows);

      expect(await schemaSnapshot(db, 'media')).toEqual(mediaBefore);
      expect((await db.query('SELECT note FROM media.assets')).rows).toEqual([{ note: 'keep me' }]);
      const { rows: publicTables } = await db.query(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`);
      expect(publicTables).toEqual([]);
      const { rows: bookkeeping } = await db.query(
        `SELECT table_schema FROM information_schema.tables WHERE table_name = 'mikro_orm_migrations'`,
      );
      expect(bookkeeping).toEqual([{ table_schema: 'catalog' }]);
    } finally {
      await freshOrm.close();
      await db.end();
      await fresh.drop();
    }
  });

  it("brings a database of 0003, with an operator's edits, to the app's catalog, deleting nothing", async () => {
    const fresh = await createTestDatabase();
    const db = new pg.Client({ connectionString: fresh.url });
    await db.connect();
    const upTo0003 = await createOrm({
      databaseUrl: fresh.url,
      schema: CATALOG_SCHEMA,
      entities: catalogEntities,
      migrations: catalogMigrations.filter((m) => m.name < '0004'),
      poolMax: 1,
    });
    const current = await createCatalogOrm(fresh.url, 1);
    const rowsOf = async (table: string) =>
      (await db.query<{ id: string; code: string; enabled: boolean }>(`SELECT id, code, enabled FROM catalog.${table} ORDER BY id`)).rows;
    const enabledImageCodes = async (table: string) =>
      (
        await db.query<{ code: string }>(`SELECT code FROM catalog.${table} WHERE media_kind = 'image' AND enabled ORDER BY sort_order, id`)
      ).rows.map((row) => row.code);
    try {
      expect(await migrate(upTo0003, fresh.url, CATALOG_SCHEMA)).toEqual([
        '0001-catalog-baseline',
        '0002-catalog-seed',
        '0003-catalog-localized-names',
      ]);
      // What operators may have done meanwhile: a style of their own, watercolor restyled with a
      // preview, a video model.
      await db.query(
        `INSERT INTO catalog.styles (id, code, title, media_kind, sort_order) VALUES ('019a0000-0000-7000-8000-00000000e001', 'noir', 'Noir', 'image', 5)`,
      );
      await db.query(
        `UPDATE catalog.styles SET title = 'Aquarelle', preview_asset_id = '019a0000-0000-7000-8000-00000000f001', sort_order = 1 WHERE code = 'watercolor'`,
      );
      await db.query(
        `INSERT INTO catalog.models (id, code, display_name, provider_code, provider_model, model_version, media_kind, job_type)
         VALUES ('019a0000-0000-7000-8000-00000000e002', 'clip-maker', 'Clip Maker', 'sim', 'sim-clip', '1', 'video', 'image.stylize')`,
      );
      const [modelsBefore, stylesBefore] = [await rowsOf('models'), await rowsOf('styles')];

      expect(await migrateCatalog(current, fresh.url)).toEqual([
        '0004-catalog-app-seed',
        '0005-catalog-model-prices',
        '0006-model-credential-modes',
        '0007-operator-audit',
      ]);
      expect(await enabledImageCodes('models')).toEqual(['patbond-v1', 'pet-art-pro', 'cute-motion']);
      expect(await enabledImageCodes('styles')).toEqual(['healing', '3d', 'comic', 'watercolor']);
      // Every entry that was there still is, under its id; the image ones not the app's are disabled.
      const [modelsAfter, stylesAfter] = [await rowsOf('models'), await rowsOf('styles')];
      expect(modelsAfter).toEqual(expect.arrayContaining(modelsBefore.map((row) => ({ ...row, enabled: row.code === 'clip-maker' }))));
      expect(stylesAfter).toEqual(expect.arrayContaining(stylesBefore.map((row) => ({ ...row, enabled: row.code === 'watercolor' }))));
      expect(modelsAfter).toHaveLength(modelsBefore.length + 3);
      expect(stylesAfter).toHaveLength(stylesBefore.length + 3);
      const { rows: watercolor } = await db.query(
        `SELECT id, title, title_i18n, subtitle, preview_asset_id, sort_order FROM catalog.styles WHERE code = 'watercolor'`,
      );
      expect(watercolor).toEqual([
        {
          id: '019a0000-0000-7000-8000-000000000101',
          title: 'Watercolor',
          title_i18n: { 'zh-CN': '水彩' },
          subtitle: 'Watercolor',
          preview_asset_id: null,
          sort_order: 40,
        },
      ]);
    } finally {
      await upTo0003.close();
      await current.close();
      await db.end();
      await fresh.drop();
    }
  });

  it('runs concurrently from two processes without applying anything twice', async () => {
    const fresh = await createTestDatabase();
    const [ormA, ormB] = await Promise.all([createCatalogOrm(fresh.url, 2), createCatalogOrm(fresh.url, 2)]);
    try {
      const [a, b] = await Promise.all([migrateCatalog(ormA, fresh.url), migrateCatalog(ormB, fresh.url)]);
      expect([...a, ...b].sort()).toEqual([
        '0001-catalog-baseline',
        '0002-catalog-seed',
        '0003-catalog-localized-names',
        '0004-catalog-app-seed',
        '0005-catalog-model-prices',
        '0006-model-credential-modes',
        '0007-operator-audit',
      ]);
    } finally {
      await ormA.close();
      await ormB.close();
      await fresh.drop();
    }
  });
});

describe('catalog - process start-up', () => {
  const main = fileURLToPath(new URL('./main.ts', import.meta.url));

  it('stops with a message naming the variable when the configuration is bad', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', main], {
      env: { ...process.env, GRPC_PORT: 'eighty', DATABASE_URL: 'mysql://x' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.status).toBe(78);
    expect(result.stderr).toContain('GRPC_PORT must be an integer, got "eighty"');
    expect(result.stderr).toContain('DATABASE_URL is invalid');
    expect(result.stderr).not.toContain('mysql://x');
  });
});
