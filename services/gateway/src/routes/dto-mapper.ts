import { jobsV1, type catalogV1, type communityV1, type jobsAdminV1, type mediaV1 } from '@atelier/contracts';
import { DEFAULT_LOCALE, type Locale } from '../i18n/locales.js';
import {
  assetPurposes,
  assetStatuses,
  errorClasses,
  jobQueues,
  jobStatuses,
  mediaKinds,
  outboxReplayResults,
  outboxStatuses,
  postCategories,
  postStatuses,
} from '../http/api-enums.js';
import { stylePreviewPath } from './style-preview-path.js';
import { roleAllows, type OperatorRole } from '../auth/operator-roles.js';

/** Contract messages as the mobile API's JSON (camelCase, lower-case enum words, null for absent). */

const iso = (date: Date | undefined): string | null => (date ? date.toISOString() : null);
const orNull = <T>(value: T | undefined): T | null => (value === undefined ? null : value);

/** A catalog name in `locale`: its translation when it has one, else the English name. */
const named = (english: string, translations: Readonly<Record<string, string>> | undefined, locale: Locale): string =>
  (locale === DEFAULT_LOCALE ? undefined : translations?.[locale]) || english;

export function toModelDto(model: catalogV1.Model, locale: Locale = DEFAULT_LOCALE) {
  return {
    id: model.id,
    code: model.code,
    displayName: named(model.displayName, model.displayNameI18n, locale),
    modelVersion: model.modelVersion,
    mediaKind: mediaKinds.toApi(model.mediaKind),
    jobType: model.jobType,
    sortOrder: model.sortOrder,
    defaultParameters: model.defaultParameters ?? {},
  };
}

export function toStyleDto(style: catalogV1.Style, locale: Locale = DEFAULT_LOCALE) {
  return {
    id: style.id,
    code: style.code,
    title: named(style.title, style.titleI18n, locale),
    subtitle: named(style.subtitle, style.subtitleI18n, locale),
    mediaKind: mediaKinds.toApi(style.mediaKind),
    previewAssetId: orNull(style.previewAssetId),
    // Public and stable (routes/style-preview-route.ts): it redirects to a short-lived URL.
    previewUrl: style.previewAssetId ? stylePreviewPath(style.id) : null,
    sortOrder: style.sortOrder,
  };
}

export function toAssetDto(asset: mediaV1.Asset) {
  return {
    id: asset.id,
    purpose: assetPurposes.toApi(asset.purpose),
    contentType: asset.contentType,
    sizeBytes: asset.sizeBytes,
    sha256: orNull(asset.sha256),
    width: orNull(asset.width),
    height: orNull(asset.height),
    status: assetStatuses.toApi(asset.status),
    refusalReason: orNull(asset.refusalReason),
    refusalMessage: orNull(asset.refusalMessage),
    createdAt: iso(asset.createdAt),
    readyAt: iso(asset.readyAt),
  };
}

export function toJobDto(job: jobsV1.Job, output?: { url: string; expiresAt: Date | undefined }) {
  const timings = job.timings;
  return {
    id: job.id,
    jobType: job.jobType,
    status: jobStatuses.toApi(job.status),
    progress: job.progress,
    queue: jobQueues.toApi(job.queue),
    queuePosition: orNull(job.queuePosition),
    attempts: { count: job.attemptCount, max: job.maxAttempts },
    modelId: orNull(job.modelId),
    styleId: orNull(job.styleId),
    petId: orNull(job.petId),
    inputAssetId: orNull(job.inputAssetId),
    outputAssetId: orNull(job.outputAssetId),
    outputUrl: output?.url ?? null,
    outputUrlExpiresAt: iso(output?.expiresAt),
    outputSha256: orNull(job.outputSha256),
    prompt: job.prompt,
    negativePrompt: job.negativePrompt,
    width: orNull(job.width),
    height: orNull(job.height),
    parameters: job.parameters ?? {},
    snapshot: job.snapshot
      ? {
          providerCode: job.snapshot.providerCode,
          providerModel: job.snapshot.providerModel,
          modelVersion: job.snapshot.modelVersion,
          styleCode: orNull(job.snapshot.styleCode),
          effectiveParameters: job.snapshot.effectiveParameters ?? null,
          effectivePrompt: orNull(job.snapshot.effectivePrompt),
        }
      : null,
    error: job.errorCode ? { code: job.errorCode, message: job.errorMessage ?? '' } : null,
    startDeadlineAt: iso(job.startDeadlineAt),
    credentialMode: job.credentialMode === 'user_key' ? 'user_key' : 'platform_key',
    credentialId: job.credentialId ?? null,
    retention: {
      inputsRedactAt: iso(job.inputsRedactAt),
      inputsRedactedAt: iso(job.inputsRedactedAt),
      redactionVersion: orNull(job.redactionVersion),
      inputImageDeleteAt: iso(job.inputImageDeleteAt),
      inputImageDeletedAt: iso(job.inputImageDeletedAt),
    },
    retryOfJobId: orNull(job.retryOfJobId),
    createdAt: iso(job.createdAt),
    updatedAt: iso(job.updatedAt),
    startedAt: iso(job.startedAt),
    completedAt: iso(job.completedAt),
    timings: timings
      ? {
          queuedMs: timings.queuedMs,
          runningMs: timings.runningMs,
          totalMs: timings.totalMs,
          attempts: timings.attempts.map((a) => ({
            attempt: a.attempt,
            startedAt: iso(a.startedAt),
            endedAt: iso(a.endedAt),
            durationMs: a.durationMs,
            outcome: jobStatuses.toApi(a.outcome),
            errorCode: orNull(a.errorCode),
          })),
        }
      : null,
    version: job.version,
  };
}

export type JobDto = ReturnType<typeof toJobDto>;

/** A job's view with (another) download URL of its output. */
export function withOutputUrl(view: JobDto, output: { url: string; expiresAt: Date | undefined }): JobDto {
  return { ...view, outputUrl: output.url, outputUrlExpiresAt: iso(output.expiresAt) };
}

/**
 * What an operator of this role is shown of a job beyond its state (docs/operator-roles.md):
 * internal error messages (the vendor's words, our stack's) and what the user wrote (prompt,
 * negative prompt) only to super_admin; null to the others.
 */
export interface InternalsSeen {
  internalMessages: boolean;
  userText: boolean;
}

export function internalsSeenBy(role: OperatorRole | null): InternalsSeen {
  const superAdmin = roleAllows(role, 'super_admin');
  return { internalMessages: superAdmin, userText: superAdmin };
}

/** An operator's job: the owner's view with its fields at the same level, and what only operators see beside them. */
export function toAdminJobDto(admin: jobsAdminV1.AdminJob, seen: InternalsSeen) {
  return {
    ...toJobDto(admin.job!),
    prompt: seen.userText ? admin.job!.prompt : null,
    negativePrompt: seen.userText ? admin.job!.negativePrompt : null,
    userId: admin.job!.userId,
    internalErrorMessage: seen.internalMessages ? orNull(admin.internalErrorMessage) : null,
    providerRequestId: orNull(admin.providerRequestId),
    leaseOwner: orNull(admin.leaseOwner),
    leaseExpiresAt: iso(admin.leaseExpiresAt),
    abandonedProviderRequests: admin.abandonedProviderRequests,
  };
}

export function toJobEventDto(event: jobsAdminV1.JobEvent, seen: InternalsSeen) {
  return {
    id: event.id,
    from: event.fromStatus === jobsV1.JobStatus.UNSPECIFIED ? null : jobStatuses.toApi(event.fromStatus),
    to: jobStatuses.toApi(event.toStatus),
    attempt: event.attempt,
    actor: event.actor,
    errorCode: orNull(event.errorCode),
    errorClass: event.errorClass === undefined ? null : errorClasses.toApi(event.errorClass),
    detail: seen.internalMessages ? orNull(event.detail) : null,
    at: iso(event.occurredAt),
  };
}

export function toJobAttemptDto(attempt: jobsAdminV1.JobAttempt, seen: InternalsSeen) {
  return {
    attempt: attempt.attempt,
    queuedAt: iso(attempt.queuedAt),
    startedAt: iso(attempt.startedAt),
    endedAt: iso(attempt.endedAt),
    queuedWaitMs: attempt.queuedWaitMs,
    runMs: attempt.runMs,
    outcome: jobStatuses.toApi(attempt.outcome),
    claimedBy: attempt.claimedBy,
    endedBy: orNull(attempt.endedBy),
    errorCode: orNull(attempt.errorCode),
    errorClass: attempt.errorClass === undefined ? null : errorClasses.toApi(attempt.errorClass),
    errorDetail: seen.internalMessages ? orNull(attempt.errorDetail) : null,
  };
}

export function toJobDetailsDto(details: jobsAdminV1.GetJobDetailsResponse, seen: InternalsSeen) {
  return {
    job: toAdminJobDto(details.job!, seen),
    events: details.events.map((event) => toJobEventDto(event, seen)),
    attempts: details.attempts.map((attempt) => toJobAttemptDto(attempt, seen)),
  };
}

export function toOutboxReplayDto(replay: jobsAdminV1.OutboxReplay) {
  return {
    id: String(replay.id),
    outboxId: replay.outboxId,
    operatorId: replay.operatorId,
    result: outboxReplayResults.toApi(replay.result),
    replayedAt: iso(replay.replayedAt),
  };
}

/** A catalog model as operators see it: the provider it runs on, whether it is shown, when it changed. */
export function toCatalogModelDto(model: catalogV1.Model) {
  return {
    ...toModelDto(model),
    providerCode: model.providerCode,
    providerModel: model.providerModel,
    enabled: model.enabled,
    displayNameI18n: model.displayNameI18n ?? {},
    credentialModes: model.credentialModes,
    createdAt: iso(model.createdAt),
    updatedAt: iso(model.updatedAt),
  };
}

/** A catalog style as operators see it, its prompt preset included. */
export function toCatalogStyleDto(style: catalogV1.Style) {
  return {
    ...toStyleDto(style),
    promptPreset: style.promptPreset,
    enabled: style.enabled,
    titleI18n: style.titleI18n ?? {},
    subtitleI18n: style.subtitleI18n ?? {},
    createdAt: iso(style.createdAt),
    updatedAt: iso(style.updatedAt),
  };
}

/**
 * A post as users see it: the author by public handle only (the identity provider's subject may
 * be an e-mail address), and whether it is the caller's own.
 */
export function toPostDto(post: communityV1.Post, callerUserId: string) {
  return {
    id: post.id,
    authorHandle: post.authorHandle,
    isMine: post.authorUserId === callerUserId,
    petId: orNull(post.petId),
    category: postCategories.toApi(post.category),
    title: post.title,
    content: post.content,
    status: postStatuses.toApi(post.status),
    generationJobId: orNull(post.generationJobId),
    media: [...post.media].sort((a, b) => a.ordinal - b.ordinal).map((m) => ({ assetId: m.assetId, ordinal: m.ordinal })),
    version: post.version,
    createdAt: iso(post.createdAt),
    updatedAt: iso(post.updatedAt),
    publishedAt: iso(post.publishedAt),
  };
}

export function toOutboxEventDto(event: jobsAdminV1.OutboxEvent) {
  return {
    id: event.id,
    aggregateId: event.aggregateId,
    eventType: event.eventType,
    subject: event.subject,
    dedupeKey: event.dedupeKey,
    status: outboxStatuses.toApi(event.status),
    attemptCount: event.attemptCount,
    lastError: orNull(event.lastError),
    createdAt: iso(event.createdAt),
    availableAt: iso(event.availableAt),
    publishedAt: iso(event.publishedAt),
  };
}

const NO_DURATIONS = { count: 0, p50Ms: 0, p90Ms: 0, p99Ms: 0 };

/** GetOverview as JSON: enum words for the queues, instants as RFC 3339. */
export function toOverviewDto(overview: jobsAdminV1.GetOverviewResponse) {
  return {
    generatedAt: iso(overview.generatedAt),
    windowStart: iso(overview.windowStart),
    bucketMinutes: overview.bucketMinutes,
    throughput: overview.throughput.map((row) => ({ ...row, bucketStart: iso(row.bucketStart) })),
    latencies: overview.latencies.map((row) => ({
      jobType: row.jobType,
      queueWait: row.queueWait ?? NO_DURATIONS,
      runTime: row.runTime ?? NO_DURATIONS,
    })),
    queues: overview.queues.map((depth) => ({ ...depth, queue: jobQueues.toApi(depth.queue) })),
    outbox: overview.outbox ?? { pending: 0, processing: 0, dead: 0, oldestPendingAgeMs: 0 },
    expiredLeases: overview.expiredLeases,
    workers: overview.workers.map((worker) => ({
      workerId: worker.workerId,
      lastLeaseRenewalAt: iso(worker.lastLeaseRenewalAt),
      jobs: worker.jobs.map((job) => ({ ...job, startedAt: iso(job.startedAt), leaseExpiresAt: iso(job.leaseExpiresAt) })),
    })),
    queueHistory: overview.queueHistory.map((bucket) => ({
      bucketStart: iso(bucket.bucketStart),
      queuedAtEnd: bucket.queuedAtEnd,
      queueWait: bucket.queueWait ?? NO_DURATIONS,
    })),
    quotaHits: {
      dayStart: iso(overview.quotaHits?.dayStart),
      monthStart: iso(overview.quotaHits?.monthStart),
      daily: overview.quotaHits?.dailyUsers ?? 0,
      monthly: overview.quotaHits?.monthlyUsers ?? 0,
      inFlight: overview.quotaHits?.inFlightUsers ?? 0,
    },
  };
}
