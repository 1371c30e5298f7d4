/**
 * Example bodies of the operator routes for the OpenAPI document (the console's client and a
 * reader of /docs see what a real answer looks like). server.test.ts checks each against its
 * route's schema, so an example cannot drift from what the route answers.
 */
const jobId = '019a3c1e-7f00-7000-8000-00000000a001';
const at = (seconds: number) => new Date(Date.UTC(2026, 11, 1, 9, 0, seconds)).toISOString();

const job = {
  id: jobId,
  jobType: 'image.stylize',
  status: 'failed',
  progress: 0,
  queue: 'interactive',
  queuePosition: null,
  attempts: { count: 2, max: 2 },
  modelId: '019a3c1e-7f00-7000-8000-00000000b001',
  styleId: '019a3c1e-7f00-7000-8000-00000000c001',
  petId: null,
  inputAssetId: '019a3c1e-7f00-7000-8000-00000000d001',
  outputAssetId: null,
  outputUrl: null,
  outputUrlExpiresAt: null,
  prompt: 'my cat as a renaissance painting',
  negativePrompt: '',
  width: null,
  height: null,
  parameters: { strength: 0.7 },
  snapshot: {
    providerCode: 'sim',
    providerModel: 'sim-stylize',
    modelVersion: '1',
    styleCode: 'renaissance',
    effectiveParameters: { strength: 0.7, seed: 42 },
    effectivePrompt: 'my cat as a renaissance painting, an oil painting in the renaissance manner',
  },
  error: { code: 'PROVIDER_UNAVAILABLE', message: 'The generation failed. Please try again.' },
  startDeadlineAt: null,
  retryOfJobId: null,
  createdAt: at(0),
  updatedAt: at(9),
  startedAt: at(7),
  completedAt: at(9),
  timings: {
    queuedMs: 1000,
    runningMs: 4000,
    totalMs: 9000,
    attempts: [
      { attempt: 1, startedAt: at(1), endedAt: at(3), durationMs: 2000, outcome: 'queued', errorCode: 'PROVIDER_UNAVAILABLE' },
      { attempt: 2, startedAt: at(7), endedAt: at(9), durationMs: 2000, outcome: 'failed', errorCode: 'PROVIDER_UNAVAILABLE' },
    ],
  },
  version: 6,
};

const adminJob = {
  job,
  userId: 'alice@example.com',
  internalErrorMessage: 'vendor answered 503 Service Unavailable',
  providerRequestId: 'pred_8f2c',
  leaseOwner: null,
  leaseExpiresAt: null,
  abandonedProviderRequests: 0,
};

const failure = { errorCode: 'PROVIDER_UNAVAILABLE', errorClass: 'provider', detail: 'vendor answered 503 Service Unavailable' };
const quiet = { errorCode: null, errorClass: null, detail: null };

const model = {
  id: '019a3c1e-7f00-7000-8000-00000000b001',
  code: 'sim-stylize',
  displayName: 'Stylize',
  modelVersion: '1',
  mediaKind: 'image',
  jobType: 'image.stylize',
  sortOrder: 10,
  defaultParameters: { strength: 0.6 },
  providerCode: 'sim',
  providerModel: 'sim-stylize',
  enabled: true,
  displayNameI18n: { 'zh-CN': '风格化' },
  createdAt: at(0),
  updatedAt: at(0),
};

const style = {
  id: '019a3c1e-7f00-7000-8000-00000000c001',
  code: 'renaissance',
  title: 'Renaissance',
  subtitle: 'Oil on canvas',
  mediaKind: 'image',
  previewAssetId: '019a3c1e-7f00-7000-8000-00000000d0c1',
  previewUrl: '/public/styles/019a3c1e-7f00-7000-8000-00000000c001/preview',
  sortOrder: 10,
  promptPreset: 'in the style of a renaissance oil painting',
  enabled: false,
  titleI18n: { 'zh-CN': '文艺复兴' },
  subtitleI18n: { 'zh-CN': '布面油画' },
  createdAt: at(0),
  updatedAt: at(5),
};

const deadEvent = {
  id: '4711',
  aggregateId: jobId,
  eventType: 'job.failed',
  subject: 'atelier.jobs.job.failed',
  dedupeKey: `${jobId}:6`,
  status: 'dead',
  attemptCount: 10,
  lastError: 'nats: timeout',
  createdAt: at(9),
  availableAt: at(59),
  publishedAt: null,
};

export const ADMIN_EXAMPLES = {
  jobs: { items: [adminJob], nextCursor: 'eyJjIjoiMjAyNi0xMi0wMVQwOTowMDowMC4wMDBaIn0' },
  retriedJob: {
    ...adminJob,
    job: {
      ...job,
      id: '019a3c1e-7f00-7000-8000-00000000a002',
      status: 'queued',
      progress: 0,
      queuePosition: 0,
      attempts: { count: 0, max: 2 },
      error: null,
      retryOfJobId: jobId,
      createdAt: at(40),
      updatedAt: at(40),
      startedAt: null,
      completedAt: null,
      timings: null,
      version: 1,
    },
    internalErrorMessage: null,
    providerRequestId: null,
  },
  deadEvents: { items: [deadEvent], nextCursor: null },
  replayedEvent: { ...deadEvent, status: 'pending', attemptCount: 0, lastError: null, availableAt: at(60) },
  putModel: {
    mediaKind: 'image',
    displayName: 'Stylize',
    providerCode: 'sim',
    providerModel: 'sim-stylize',
    modelVersion: '1',
    jobType: 'image.stylize',
    sortOrder: 10,
    defaultParameters: { strength: 0.6 },
  },
  putStyle: {
    mediaKind: 'image',
    title: 'Renaissance',
    subtitle: 'Oil on canvas',
    promptPreset: 'in the style of a renaissance oil painting',
    sortOrder: 10,
  },
  jobDetails: {
    job: adminJob,
    events: [
      { id: 101, from: null, to: 'queued', attempt: 0, actor: 'user:alice@example.com', ...quiet, at: at(0) },
      { id: 102, from: 'queued', to: 'running', attempt: 1, actor: 'worker:worker-7f9c', ...quiet, at: at(1) },
      { id: 103, from: 'running', to: 'queued', attempt: 1, actor: 'worker:worker-7f9c', ...failure, at: at(3) },
      { id: 104, from: 'queued', to: 'running', attempt: 2, actor: 'worker:worker-2b41', ...quiet, at: at(7) },
      { id: 105, from: 'running', to: 'failed', attempt: 2, actor: 'worker:worker-2b41', ...failure, at: at(9) },
    ],
    attempts: [
      {
        attempt: 1,
        queuedAt: at(0),
        startedAt: at(1),
        endedAt: at(3),
        queuedWaitMs: 1000,
        runMs: 2000,
        outcome: 'queued',
        claimedBy: 'worker:worker-7f9c',
        endedBy: 'worker:worker-7f9c',
        errorCode: failure.errorCode,
        errorClass: failure.errorClass,
        errorDetail: failure.detail,
      },
      {
        attempt: 2,
        queuedAt: at(3),
        startedAt: at(7),
        endedAt: at(9),
        queuedWaitMs: 4000,
        runMs: 2000,
        outcome: 'failed',
        claimedBy: 'worker:worker-2b41',
        endedBy: 'worker:worker-2b41',
        errorCode: failure.errorCode,
        errorClass: failure.errorClass,
        errorDetail: failure.detail,
      },
    ],
  },
  cancelledJob: {
    ...adminJob,
    job: { ...job, status: 'cancelled', error: null, attempts: { count: 1, max: 2 }, timings: null, completedAt: at(4) },
    internalErrorMessage: null,
  },
  replays: {
    items: [
      { id: '12', outboxId: '4711', operatorId: 'ops@example.com', result: 'not_dead', replayedAt: at(30) },
      { id: '11', outboxId: '4711', operatorId: 'ops@example.com', result: 'replayed', replayedAt: at(20) },
    ],
    nextCursor: null,
  },
  model,
  style,
  catalog: { models: [model], styles: [style] },
};
