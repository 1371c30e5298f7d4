import { type catalogV1 } from '@atelier/contracts';
import type { Model, Style } from '../db/catalog-sql.js';
import { toModelPriceMessage, type ModelPriceRow } from '../domain/model-prices.js';
import { mediaKindMessage } from '../domain/media-kind.js';

/** A model as the contract has it; its price history only where the read includes it. */
export function toModelMessage(model: Model, prices: readonly ModelPriceRow[] = []): catalogV1.Model {
  return {
    id: model.id,
    code: model.code,
    displayName: model.displayName,
    providerCode: model.providerCode,
    providerModel: model.providerModel,
    modelVersion: model.modelVersion,
    mediaKind: mediaKindMessage(model.mediaKind),
    jobType: model.jobType,
    enabled: model.enabled,
    sortOrder: model.sortOrder,
    defaultParameters: model.defaultParameters,
    displayNameI18n: model.displayNameI18n,
    credentialModes: model.credentialModes,
    createdAt: model.createdAt,
    updatedAt: model.updatedAt,
    prices: prices.map(toModelPriceMessage),
  };
}

export function toStyleMessage(style: Style): catalogV1.Style {
  return {
    id: style.id,
    code: style.code,
    title: style.title,
    subtitle: style.subtitle,
    mediaKind: mediaKindMessage(style.mediaKind),
    previewAssetId: style.previewAssetId ?? undefined,
    promptPreset: style.promptPreset,
    enabled: style.enabled,
    sortOrder: style.sortOrder,
    titleI18n: style.titleI18n,
    subtitleI18n: style.subtitleI18n,
    createdAt: style.createdAt,
    updatedAt: style.updatedAt,
  };
}
