import type { OperationExamples } from '../http/openapi-conventions.js';
import { ADMIN_EXAMPLES } from './admin-examples.js';

/**
 * Example requests and answers of the API (the operator routes' from admin-examples.ts), by operationId, for the OpenAPI document: what a
 * generated client's reader and /docs show. openapi-document.test.ts checks each against its
 * operation's schema, so an example cannot drift from what the route answers or accepts.
 */
const at = (seconds: number) => new Date(Date.UTC(2026, 11, 1, 9, 0, seconds)).toISOString();
const ids = {
  job: '019a3c1e-7f00-7000-8000-00000000a001',
  model: '019a3c1e-7f00-7000-8000-00000000b001',
  style: '019a3c1e-7f00-7000-8000-00000000c001',
  input: '019a3c1e-7f00-7000-8000-00000000d001',
  output: '019a3c1e-7f00-7000-8000-00000000d002',
  post: '019a3c1e-7f00-7000-8000-00000000e001',
  pet: '019a3c1e-7f00-7000-8000-00000000f001',
};
const providerCredential = {
  id: '019a3c1e-7f00-7000-8000-00000000c9e1',
  providerCode: 'sim',
  label: 'my studio key',
  keyHint: '4c2e',
  createdAt: at(1),
  lastRefusedAt: null,
};
const downloadUrl = (assetId: string) =>
  `https://media.atelier.internal/atelier-media/${assetId}?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=300&X-Amz-Signature=3f1c…`;

// The seeded catalog's first model and style (catalog migration 0004): no preview, so the app
// shows its built-in image for the code.
const model = {
  id: ids.model,
  code: 'patbond-v1',
  displayName: 'Patbond-V1',
  modelVersion: '1.0',
  mediaKind: 'image',
  jobType: 'image.stylize',
  sortOrder: 10,
  defaultParameters: { strength: 0.8 },
};
const seededStyle = {
  id: '019a3c1e-7f00-7000-8000-00000000c002',
  code: 'healing',
  title: 'Healing Anime',
  subtitle: 'Healing',
  mediaKind: 'image',
  previewAssetId: null,
  previewUrl: null,
  sortOrder: 10,
};
// A style an operator added with a preview image of its own.
const style = {
  id: ids.style,
  code: 'renaissance',
  title: 'Renaissance',
  subtitle: 'Oil on canvas',
  mediaKind: 'image',
  previewAssetId: '019a3c1e-7f00-7000-8000-00000000d0c1',
  previewUrl: `/public/styles/${ids.style}/preview`,
  sortOrder: 50,
};

const uploadingAsset = {
  id: ids.input,
  purpose: 'ai_input',
  contentType: 'image/jpeg',
  sizeBytes: 482113,
  sha256: null,
  width: null,
  height: null,
  status: 'uploading',
  refusalReason: null,
  refusalMessage: null,
  createdAt: at(0),
  readyAt: null,
};
const refusedAsset = {
  ...uploadingAsset,
  refusalReason: 'UPLOAD_NOT_AN_IMAGE',
  refusalMessage: 'the bytes are not a PNG, JPEG or WebP image',
};
const readyAsset = {
  ...uploadingAsset,
  sha256: '9b74c9897bac770ffc029102a200c5de0f3c1e1f6c3a2b1d8e4f5a6b7c8d9e0f',
  width: 1024,
  height: 768,
  status: 'ready',
  readyAt: at(2),
};

const queuedJob = {
  id: ids.job,
  jobType: 'image.stylize',
  status: 'queued',
  progress: 0,
  queue: 'interactive',
  queuePosition: 3,
  attempts: { count: 0, max: 3 },
  modelId: ids.model,
  styleId: ids.style,
  petId: ids.pet,
  inputAssetId: ids.input,
  outputAssetId: null,
  outputUrl: null,
  outputUrlExpiresAt: null,
  outputSha256: null,
  prompt: 'my cat as a renaissance painting',
  negativePrompt: '',
  width: null,
  height: null,
  parameters: { strength: 0.7 },
  snapshot: {
    providerCode: 'sim',
    providerModel: 'sim-patbond-v1',
    modelVersion: '1.0',
    styleCode: 'renaissance',
    effectiveParameters: { strength: 0.7, seed: 42 },
    effectivePrompt: 'my cat as a renaissance painting, in the style of a renaissance oil painting',
  },
  error: null,
  startDeadlineAt: at(33),
  retryOfJobId: null,
  credentialMode: 'platform_key',
  credentialId: null,
  retention: { inputsRedactAt: null, inputsRedactedAt: null, redactionVersion: null, inputImageDeleteAt: null, inputImageDeletedAt: null },
  createdAt: at(3),
  updatedAt: at(3),
  startedAt: null,
  completedAt: null,
  timings: null,
  version: 1,
};
const succeededJob = {
  ...queuedJob,
  status: 'succeeded',
  progress: 100,
  queuePosition: null,
  attempts: { count: 1, max: 3 },
  outputAssetId: ids.output,
  outputUrl: downloadUrl(ids.output),
  outputUrlExpiresAt: at(305),
  outputSha256: '3f0a6c1e9b2d4f5a7c8e0b1d2f3a4c5e6b7d8f9a0c1e2d3f4a5b6c7d8e9f0a1b',
  startedAt: at(4),
  completedAt: at(9),
  updatedAt: at(9),
  // Ended 2026-12-01: image.stylize's prompts and input image are removed 30 days later (docs/retention.md).
  retention: {
    inputsRedactAt: '2026-12-31T09:00:09.000Z',
    inputsRedactedAt: null,
    redactionVersion: null,
    inputImageDeleteAt: '2026-12-31T09:00:09.000Z',
    inputImageDeletedAt: null,
  },
  timings: {
    queuedMs: 1000,
    runningMs: 5000,
    totalMs: 6000,
    attempts: [{ attempt: 1, startedAt: at(4), endedAt: at(9), durationMs: 5000, outcome: 'succeeded', errorCode: null }],
  },
  version: 4,
};
const cancelledJob = {
  ...queuedJob,
  status: 'cancelled',
  queuePosition: null,
  completedAt: at(5),
  updatedAt: at(5),
  version: 2,
};

const draft = {
  id: ids.post,
  authorHandle: 'calm-otter-4821',
  isMine: true,
  petId: null,
  category: 'ai_creation',
  title: 'My cat, renaissance style',
  content: '',
  status: 'draft',
  generationJobId: ids.job,
  media: [{ assetId: ids.output, ordinal: 0 }],
  version: 1,
  createdAt: at(10),
  updatedAt: at(10),
  publishedAt: null,
};
const published = { ...draft, status: 'published', content: 'Painted by Atelier', version: 2, updatedAt: at(20), publishedAt: at(20) };
const deleted = { ...published, status: 'deleted', version: 3, updatedAt: at(30) };

const deletionParts = (status: 'in_progress' | 'completed') => [
  { service: 'jobs', status: 'completed', completedAt: at(41), removed: 12 },
  { service: 'media', status, completedAt: status === 'completed' ? at(44) : null, removed: status === 'completed' ? 25 : 9 },
  { service: 'community', status: 'completed', completedAt: at(41), removed: 3 },
  { service: 'webhooks', status: 'completed', completedAt: at(41), removed: 1 },
];
const webhookEndpoint = {
  id: '019a3c1e-7f00-7000-8000-00000000f001',
  url: 'https://hooks.partner.example/atelier',
  eventTypes: ['job.succeeded', 'job.failed'],
  description: 'partner backend',
  createdAt: at(0),
};
const webhookDelivery = {
  id: '019a3c1e-7f00-7000-8000-00000000f101',
  endpointId: webhookEndpoint.id,
  eventId: `event:${ids.job}:succeeded:v4`,
  eventType: 'job.succeeded',
  status: 'delivered',
  attemptCount: 2,
  nextAttemptAt: null,
  createdAt: at(3),
  deliveredAt: at(9),
  attempts: [
    { attempt: 1, startedAt: at(3), durationMs: 212, statusCode: 503, error: 'the endpoint answered 503' },
    { attempt: 2, startedAt: at(8), durationMs: 95, statusCode: 200, error: null },
  ],
};

export const API_EXAMPLES: OperationExamples = {
  exportAccount: {
    responses: {
      200: {
        exportedAt: at(39),
        userId: 'alice@example.com',
        jobs: [succeededJob],
        assets: [
          { asset: readyAsset, url: downloadUrl(ids.input), urlExpiresAt: at(339) },
          {
            asset: { ...readyAsset, id: ids.output, purpose: 'ai_output', contentType: 'image/png' },
            url: downloadUrl(ids.output),
            urlExpiresAt: at(339),
          },
        ],
        posts: [published],
        truncated: false,
      },
    },
  },
  deleteAccount: {
    responses: { 202: { status: 'in_progress', requestedAt: at(40), completedAt: null, parts: deletionParts('in_progress') } },
  },
  getAccountDeletion: {
    responses: { 200: { status: 'completed', requestedAt: at(40), completedAt: at(44), parts: deletionParts('completed') } },
  },
  getCreationCatalog: { responses: { 200: { models: [model], styles: [seededStyle, style] } } },
  getStylePreview: {
    responses: {
      200: {
        url: 'https://media.example.com/atelier/previews/019a3c1e-7f00-7000-8000-00000000d0c1?X-Amz-Expires=300&X-Amz-Signature=5f0c2e',
        expiresAt: at(5),
      },
    },
  },
  createUpload: {
    request: { purpose: 'ai_input', contentType: 'image/jpeg', sizeBytes: 482113 },
    responses: {
      201: {
        asset: uploadingAsset,
        upload: {
          url: `https://media.atelier.internal/atelier-media/${ids.input}?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=7a0e…`,
          method: 'PUT',
          headers: { 'content-type': 'image/jpeg', 'content-length': '482113' },
          expiresAt: at(600),
        },
      },
    },
  },
  completeUpload: { responses: { 200: { asset: readyAsset } } },
  getAsset: { responses: { 200: { asset: readyAsset, url: downloadUrl(ids.input), urlExpiresAt: at(300) } } },
  listAssets: {
    responses: {
      200: {
        items: [
          {
            asset: { ...readyAsset, id: ids.output, purpose: 'ai_output', contentType: 'image/png', createdAt: at(8), readyAt: at(9) },
            url: downloadUrl(ids.output),
            urlExpiresAt: at(305),
          },
          { asset: readyAsset, url: downloadUrl(ids.input), urlExpiresAt: at(300) },
          { asset: { ...refusedAsset, id: '019a3c1e-7f00-7000-8000-00000000d000' }, url: null, urlExpiresAt: null },
        ],
        nextCursor: 'eyJjIjoiMTc2NDU3OTYwMDAwMDAwMCIsImkiOiIwMTlhM2MxZS03ZjAwLTcwMDAtODAwMC0wMDAwMDAwMGQwMDAifQ',
      },
    },
  },
  createGenerationJob: { responses: { 200: { job: queuedJob }, 201: { job: queuedJob } } },
  listGenerationJobs: { responses: { 200: { items: [succeededJob], nextCursor: 'eyJjIjoiMjAyNi0xMi0wMVQwOTowMDowMy4wMDBaIn0' } } },
  getGenerationJob: { responses: { 200: { job: succeededJob } } },
  cancelGenerationJob: { responses: { 200: { job: cancelledJob } } },
  createDraftFromJob: {
    request: { title: 'My cat, renaissance style' },
    responses: { 200: { post: draft }, 201: { post: draft } },
  },
  streamJobEvents: {
    responses: { 200: `id: 4\nevent: job\ndata: ${JSON.stringify(succeededJob)}\n\n` },
  },
  createPost: {
    request: {
      category: 'ai_creation',
      title: 'My cat, renaissance style',
      status: 'published',
      mediaAssetIds: [ids.output],
      generationJobId: ids.job,
    },
    responses: { 200: { post: published }, 201: { post: published } },
  },
  updatePost: {
    request: { expectedVersion: 1, status: 'published', content: 'Painted by Atelier' },
    responses: { 200: { post: published } },
  },
  deletePost: { responses: { 200: { post: deleted } } },
  getPost: { responses: { 200: { post: published } } },
  listFeed: { responses: { 200: { items: [{ ...published, isMine: false, authorHandle: 'brave-heron-1177' }], nextCursor: null } } },
  listMyPosts: { responses: { 200: { items: [published], nextCursor: null } } },
  createWebhookEndpoint: {
    request: { url: 'https://hooks.partner.example/atelier', eventTypes: ['job.succeeded', 'job.failed'], description: 'partner backend' },
    responses: { 201: { endpoint: webhookEndpoint, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwMfKQ9r8GKYo=' } },
  },
  listWebhookEndpoints: { responses: { 200: { items: [webhookEndpoint] } } },
  deleteWebhookEndpoint: { responses: { 200: { deleted: true } } },
  listWebhookDeliveries: { responses: { 200: { items: [webhookDelivery], nextCursor: null } } },
  replayWebhookDelivery: {
    responses: { 202: { delivery: { ...webhookDelivery, status: 'pending', nextAttemptAt: at(40), deliveredAt: null } } },
  },
  createProviderCredential: {
    // An example key: a vendor's own is longer; it is never answered back, only its last four characters.
    request: { providerCode: 'sim', label: 'my studio key', apiKey: 'sk-example-0000-4c2e' },
    responses: { 201: { credential: providerCredential } },
  },
  listProviderCredentials: { responses: { 200: { items: [providerCredential], maxItems: 5 } } },
  deleteProviderCredential: { responses: { 200: { deleted: true } } },
  adminSetProviderBudget: {
    request: { providerCode: 'sim', providerModel: '', dailyLimitMicros: 25_000_000, currency: 'USD' },
    responses: {},
  },
  adminSetProviderLimit: { request: { providerCode: 'sim', providerModel: '', maxConcurrent: 3, maxRequestsPerSecond: 10 }, responses: {} },
  adminListJobs: { responses: { 200: ADMIN_EXAMPLES.jobs } },
  adminRetryJob: { responses: { 201: { job: ADMIN_EXAMPLES.retriedJob } } },
  adminListDeadOutboxEvents: { responses: { 200: ADMIN_EXAMPLES.deadEvents } },
  adminReplayOutboxEvent: { responses: { 200: { event: ADMIN_EXAMPLES.replayedEvent } } },
  adminPutModel: {
    request: ADMIN_EXAMPLES.putModel,
    responses: { 201: { model: { ...ADMIN_EXAMPLES.model, enabled: true }, created: true } },
  },
  adminPutStyle: {
    request: ADMIN_EXAMPLES.putStyle,
    responses: { 201: { style: { ...ADMIN_EXAMPLES.style, enabled: true }, created: true } },
  },
};
