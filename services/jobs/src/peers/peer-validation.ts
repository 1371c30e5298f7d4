import { commonV1, mediaV1 } from '@atelier/contracts';
import type { PromiseClient } from '@atelier/grpc';
import { AppError, ErrorCode, FailedPreconditionError, NotFoundError, peerFailure } from '@atelier/errors';
import type { CatalogReads } from './catalog-cache.js';
import type { JobCommand, JobDefinition } from '../definitions/index.js';
import type { InputAssetLookups } from './input-asset-lookups.js';
import { petNotFound, type PetDirectory } from './pet-directory.js';

const GONE: ReadonlySet<mediaV1.AssetStatus> = new Set([mediaV1.AssetStatus.DELETED, mediaV1.AssetStatus.DELETING]);

/** The peer services CreateJob validates against (SPEC §4.3): ids are checked where they live. */
export interface Peers {
  /** Catalog through jobs' cache (catalog-cache.ts): a miss asks catalog and fails as catalog does. */
  catalog: CatalogReads;
  media: PromiseClient<mediaV1.MediaServiceClient>;
  /** CreateJob's input checks, coalesced into batch calls (input-asset-lookups.ts). */
  inputAssets: InputAssetLookups;
  /** The app's pet service, through jobs' short cache of its positive answers (pet-visibility-cache.ts). */
  pets: PetDirectory;
}

export interface ResolvedCommand {
  mediaKind: 'image' | 'video';
  snapshot: { providerCode: string; providerModel: string; modelVersion: string } | null;
  styleCode: string | null;
  /** The model's default_parameters and the style's prompt preset, for the job's effective input. */
  defaultParameters: Record<string, unknown> | undefined;
  promptPreset: string | undefined;
  /** Whose vendor keys the model allows (docs/credentials.md); no model: none needed. */
  credentialModes: readonly string[];
}

/** A failed lookup: NOT_FOUND becomes the caller's own refusal, anything else a peer failure. */
function lookupFailure(peer: string, error: unknown, notFound: () => AppError): AppError {
  if (error instanceof AppError && error.code === ErrorCode.NOT_FOUND) return notFound();
  return peerFailure(peer, error);
}

const kindOf = (kind: commonV1.MediaKind): 'image' | 'video' => (kind === commonV1.MediaKind.VIDEO ? 'video' : 'image');

/**
 * The model and style must exist, be enabled, fit the job type and share one media kind; the
 * input asset must be the user's own, ready, with purpose ai_input; the pet, when one is named,
 * must be visible to the user (theirs, or shared with them). Lookups run in parallel.
 */
export async function resolveAgainstPeers(
  peers: Peers,
  command: JobCommand,
  definition: JobDefinition,
  userId: string,
): Promise<ResolvedCommand> {
  const [model, style, asset] = await Promise.all([
    command.modelId
      ? peers.catalog.model(command.modelId).then(
          (model) => model,
          (e: unknown) => {
            throw lookupFailure('catalog', e, () => new FailedPreconditionError('MODEL_NOT_FOUND', 'the model does not exist'));
          },
        )
      : undefined,
    command.styleId
      ? peers.catalog.style(command.styleId).then(
          (style) => style,
          (e: unknown) => {
            throw lookupFailure('catalog', e, () => new FailedPreconditionError('STYLE_NOT_FOUND', 'the style does not exist'));
          },
        )
      : undefined,
    command.inputAssetId
      ? peers.inputAssets.get(command.inputAssetId).then(
          (asset) => asset,
          (e: unknown) => {
            throw lookupFailure('media', e, () => new NotFoundError('input asset'));
          },
        )
      : undefined,
    // Only when a pet is named: a job without one never waits for the pet service. A pet service
    // that answers NOT_FOUND instead of "not visible" means the same.
    command.petId
      ? peers.pets.isVisible(userId, command.petId).then(
          (visible) => {
            if (!visible) throw petNotFound();
          },
          (e: unknown) => {
            throw lookupFailure('pet', e, petNotFound);
          },
        )
      : undefined,
  ]);

  if (model) {
    if (!model.enabled) throw new FailedPreconditionError('MODEL_DISABLED', `the model ${model.code} is not available right now`);
    if (model.jobType !== definition.jobType) {
      throw new FailedPreconditionError(
        'MODEL_JOB_TYPE_MISMATCH',
        `the model ${model.code} runs ${model.jobType} jobs, not ${definition.jobType}`,
      );
    }
  }
  if (style) {
    if (!style.enabled) throw new FailedPreconditionError('STYLE_DISABLED', `the style ${style.code} is not available right now`);
    if (model && style.mediaKind !== model.mediaKind) {
      throw new FailedPreconditionError(
        'STYLE_MEDIA_KIND_MISMATCH',
        `the style ${style.code} is for ${kindOf(style.mediaKind)}, the model makes ${kindOf(model.mediaKind)}`,
      );
    }
  }
  if (asset) {
    // Someone else's, a deleted asset, or one its owner is deleting (media's DeleteOwnAsset marks
    // it before asking jobs whether a job uses it) does not exist for this user.
    if (asset.ownerUserId !== userId || GONE.has(asset.status)) throw new NotFoundError('input asset');
    if (asset.status !== mediaV1.AssetStatus.READY)
      throw new FailedPreconditionError('MEDIA_NOT_READY', 'the input image has not finished uploading');
    if (asset.purpose !== mediaV1.AssetPurpose.AI_INPUT) {
      throw new FailedPreconditionError('INPUT_ASSET_WRONG_PURPOSE', 'the input image must be uploaded with purpose ai_input');
    }
  }
  return {
    mediaKind: model ? kindOf(model.mediaKind) : 'image',
    snapshot: model ? { providerCode: model.providerCode, providerModel: model.providerModel, modelVersion: model.modelVersion } : null,
    styleCode: style?.code ?? null,
    defaultParameters: model?.defaultParameters,
    promptPreset: style?.promptPreset,
    // A catalog that predates credential modes answers none: the platform's key, as before.
    credentialModes: model ? (model.credentialModes.length > 0 ? model.credentialModes : ['platform_key']) : [],
  };
}
