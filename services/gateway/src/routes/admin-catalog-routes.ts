import type { FastifyInstance } from 'fastify';
import { commonV1 } from '@atelier/contracts';
import { JOB_TYPE_PATTERN_SOURCE, JOB_TYPES, PROVIDER_CODES } from '@atelier/job-types';
import {
  CATALOG_SORT_ORDER_LIMIT,
  MAX_MODEL_DISPLAY_NAME_LENGTH,
  MAX_MODEL_VERSION_LENGTH,
  MAX_PROMPT_PRESET_LENGTH,
  MAX_PROVIDER_MODEL_LENGTH,
  MAX_STYLE_SUBTITLE_LENGTH,
  MAX_STYLE_TITLE_LENGTH,
} from '@atelier/validation';
import type { GatewayContext } from '../gateway-context.js';
import { object, ref, responses, uuid } from '../http/schemas.js';
import { ADMIN_EXAMPLES } from './admin-examples.js';
import { toCatalogModelDto, toCatalogStyleDto } from './dto-mapper.js';
import { mediaKinds } from '../http/api-enums.js';
import { operatorActorOf } from '../auth/operator-actor.js';

// The catalog's rules, mirrored so a bad field is refused here by its API name (the catalog
// service checks them again: domain/catalog-rules.ts is the rule, these are its first line).
const code = {
  type: 'string',
  pattern: '^[a-z0-9][a-z0-9_-]{1,63}$',
  description: '2–64 lower-case letters, digits, - or _, starting with a letter or a digit',
};
const mediaKind = { type: 'string', enum: mediaKinds.words };
const sortOrder = { type: 'integer', minimum: -CATALOG_SORT_ORDER_LIMIT, maximum: CATALOG_SORT_ORDER_LIMIT, default: 0 };
const enabled = { type: 'boolean', description: 'absent: true for a new entry, unchanged for an existing one' };

interface ModelBody {
  mediaKind: string;
  displayName: string;
  providerCode: string;
  providerModel: string;
  modelVersion: string;
  jobType: string;
  enabled?: boolean;
  sortOrder: number;
  defaultParameters?: Record<string, unknown>;
  displayNameI18n?: Record<string, string>;
  credentialModes?: string[];
}

interface StyleBody {
  mediaKind: string;
  title: string;
  subtitle: string;
  previewAssetId?: string | null;
  promptPreset: string;
  enabled?: boolean;
  sortOrder: number;
  titleI18n?: Record<string, string>;
  subtitleI18n?: Record<string, string>;
}

/**
 * A name's translations in a write: the languages the catalog takes (catalog's localized-text.ts),
 * each under the English name's bound; an empty text removes that language. Absent: an update
 * keeps the entry's translations; `{}` removes them all.
 */
const translations = (name: string, maxLength: number) => ({
  type: 'object',
  additionalProperties: false,
  properties: { 'zh-CN': { type: 'string', maxLength } },
  description: `${name} in other languages (Simplified Chinese: zh-CN), at most ${maxLength} characters each; absent: unchanged, {}: none`,
  examples: [{ 'zh-CN': '水彩' }],
});

/** A translation map as the catalog's LocalizedText: absent stays absent (keep), present replaces. */
const localizedText = (values: Record<string, string> | undefined) => (values === undefined ? undefined : { values });

const modelBody = object(
  {
    mediaKind,
    displayName: { type: 'string', minLength: 1, maxLength: MAX_MODEL_DISPLAY_NAME_LENGTH },
    providerCode: {
      type: 'string',
      pattern: '^[a-z][a-z0-9_-]{0,63}$',
      description: `the provider adapter; one the platform has (${PROVIDER_CODES.join(', ')}), else 400 naming provider_code`,
    },
    providerModel: { type: 'string', minLength: 1, maxLength: MAX_PROVIDER_MODEL_LENGTH },
    modelVersion: { type: 'string', minLength: 1, maxLength: MAX_MODEL_VERSION_LENGTH },
    jobType: {
      type: 'string',
      pattern: JOB_TYPE_PATTERN_SOURCE,
      examples: ['image.stylize'],
      description: `a job type the platform ships (${JOB_TYPES.map((type) => type.jobType).join(', ')}), else 400 naming job_type`,
    },
    enabled,
    sortOrder,
    defaultParameters: { type: 'object', additionalProperties: true, description: "merged under a job's own parameters; at most 16 KiB" },
    displayNameI18n: translations('displayName', MAX_MODEL_DISPLAY_NAME_LENGTH),
    credentialModes: {
      type: 'array',
      items: { type: 'string', enum: ['platform_key', 'user_key'] },
      maxItems: 2,
      uniqueItems: true,
      description:
        "whose vendor keys a job of this model may run with (docs/credentials.md); absent or empty: ['platform_key'] for a new model, unchanged for an existing one",
    },
  },
  ['mediaKind', 'displayName', 'providerCode', 'providerModel', 'modelVersion', 'jobType'],
);

const styleBody = object(
  {
    mediaKind,
    title: { type: 'string', minLength: 1, maxLength: MAX_STYLE_TITLE_LENGTH },
    subtitle: { type: 'string', maxLength: MAX_STYLE_SUBTITLE_LENGTH, default: '' },
    previewAssetId: {
      type: ['string', 'null'],
      format: 'uuid',
      description:
        'a ready media asset (upload it first), else 400 naming preview_asset_id; it becomes public (previewUrl) while the style is enabled',
    },
    promptPreset: { type: 'string', maxLength: MAX_PROMPT_PRESET_LENGTH, default: '' },
    enabled,
    sortOrder,
    titleI18n: translations('title', MAX_STYLE_TITLE_LENGTH),
    subtitleI18n: translations('subtitle', MAX_STYLE_SUBTITLE_LENGTH),
  },
  ['mediaKind', 'title'],
);

const upserted = (entry: 'model' | 'style', example: object) => ({
  200: {
    ...object({ [entry]: ref(entry === 'model' ? 'CatalogModel' : 'CatalogStyle'), created: { type: 'boolean' } }),
    examples: [example],
  },
  201: object({ [entry]: ref(entry === 'model' ? 'CatalogModel' : 'CatalogStyle'), created: { type: 'boolean' } }),
});

/** Catalog management for operators (role admin, checked by the admin hook): disabled entries included. */
export function registerAdminCatalogRoutes(app: FastifyInstance, { peers }: GatewayContext): void {
  app.get<{ Querystring: { mediaKind?: string } }>(
    '/admin-api/catalog',
    {
      schema: {
        operationId: 'adminGetCatalog',
        tags: ['operators'],
        summary: 'Every model and style, disabled ones included, by kind then display order',
        querystring: { type: 'object', additionalProperties: false, properties: { mediaKind } },
        response: responses({
          200: {
            ...object({ models: { type: 'array', items: ref('CatalogModel') }, styles: { type: 'array', items: ref('CatalogStyle') } }),
            examples: [ADMIN_EXAMPLES.catalog],
          },
        }),
      },
    },
    async (request) => {
      const kind = request.query.mediaKind ? mediaKinds.fromApi(request.query.mediaKind)! : commonV1.MediaKind.UNSPECIFIED;
      const entries = await peers.catalog.listCatalogEntries({ mediaKind: kind });
      return { models: entries.models.map(toCatalogModelDto), styles: entries.styles.map(toCatalogStyleDto) };
    },
  );

  app.put<{ Params: { code: string }; Body: ModelBody }>(
    '/admin-api/catalog/models/:code',
    {
      schema: {
        operationId: 'adminPutModel',
        tags: ['operators'],
        summary: 'Create (201) or replace (200) the model with this code and media kind',
        params: object({ code }),
        body: modelBody,
        response: responses(upserted('model', { model: ADMIN_EXAMPLES.model, created: false })),
      },
    },
    async (request, reply) => {
      const body = request.body;
      const { model, created } = await peers.catalog.upsertModel({
        actor: operatorActorOf(request),
        code: request.params.code,
        mediaKind: mediaKinds.fromApi(body.mediaKind)!,
        displayName: body.displayName,
        providerCode: body.providerCode,
        providerModel: body.providerModel,
        modelVersion: body.modelVersion,
        jobType: body.jobType,
        enabled: body.enabled,
        sortOrder: body.sortOrder,
        defaultParameters: body.defaultParameters ?? {},
        displayNameI18n: localizedText(body.displayNameI18n),
        credentialModes: body.credentialModes ?? [],
      });
      reply.code(created ? 201 : 200);
      return { model: toCatalogModelDto(model!), created };
    },
  );

  app.put<{ Params: { code: string }; Body: StyleBody }>(
    '/admin-api/catalog/styles/:code',
    {
      schema: {
        operationId: 'adminPutStyle',
        tags: ['operators'],
        summary: 'Create (201) or replace (200) the style with this code and media kind',
        params: object({ code }),
        body: styleBody,
        response: responses(upserted('style', { style: ADMIN_EXAMPLES.style, created: false })),
      },
    },
    async (request, reply) => {
      const body = request.body;
      const { style, created } = await peers.catalog.upsertStyle({
        actor: operatorActorOf(request),
        code: request.params.code,
        mediaKind: mediaKinds.fromApi(body.mediaKind)!,
        title: body.title,
        subtitle: body.subtitle,
        previewAssetId: body.previewAssetId ?? undefined,
        promptPreset: body.promptPreset,
        enabled: body.enabled,
        sortOrder: body.sortOrder,
        titleI18n: localizedText(body.titleI18n),
        subtitleI18n: localizedText(body.subtitleI18n),
      });
      reply.code(created ? 201 : 200);
      return { style: toCatalogStyleDto(style!), created };
    },
  );

  for (const [action, value] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    app.post<{ Params: { id: string } }>(
      `/admin-api/catalog/models/:id/${action}`,
      {
        schema: {
          operationId: value ? 'adminEnableModel' : 'adminDisableModel',
          tags: ['operators'],
          summary: value
            ? 'Show a model to users again (idempotent)'
            : 'Hide a model from users; new jobs with it are refused (idempotent)',
          params: object({ id: uuid }),
          response: responses({
            200: { ...object({ model: ref('CatalogModel') }), examples: [{ model: { ...ADMIN_EXAMPLES.model, enabled: value } }] },
          }),
        },
      },
      async (request) => {
        const { model } = await peers.catalog.setModelEnabled({
          modelId: request.params.id,
          enabled: value,
          actor: operatorActorOf(request),
        });
        return { model: toCatalogModelDto(model!) };
      },
    );
    app.post<{ Params: { id: string } }>(
      `/admin-api/catalog/styles/:id/${action}`,
      {
        schema: {
          operationId: value ? 'adminEnableStyle' : 'adminDisableStyle',
          tags: ['operators'],
          summary: value
            ? 'Show a style to users again (idempotent)'
            : 'Hide a style from users; new jobs with it are refused (idempotent)',
          params: object({ id: uuid }),
          response: responses({
            200: { ...object({ style: ref('CatalogStyle') }), examples: [{ style: { ...ADMIN_EXAMPLES.style, enabled: value } }] },
          }),
        },
      },
      async (request) => {
        const { style } = await peers.catalog.setStyleEnabled({
          styleId: request.params.id,
          enabled: value,
          actor: operatorActorOf(request),
        });
        return { style: toCatalogStyleDto(style!) };
      },
    );
  }
}
