import { commonV1 } from '@atelier/contracts';
import { InvalidArgumentError } from '@atelier/errors';

/** How a media kind is stored (the `media_kind` columns). */
export type StoredMediaKind = 'image' | 'video';

const STORED_BY_MESSAGE = new Map<commonV1.MediaKind, StoredMediaKind>([
  [commonV1.MediaKind.IMAGE, 'image'],
  [commonV1.MediaKind.VIDEO, 'video'],
]);

/** A request's media kind, which must be IMAGE or VIDEO. */
export function requireMediaKind(kind: commonV1.MediaKind, field = 'media_kind'): StoredMediaKind {
  const stored = STORED_BY_MESSAGE.get(kind);
  if (!stored) throw new InvalidArgumentError(field, 'must be MEDIA_KIND_IMAGE or MEDIA_KIND_VIDEO');
  return stored;
}

export function mediaKindMessage(stored: string): commonV1.MediaKind {
  return stored === 'video' ? commonV1.MediaKind.VIDEO : commonV1.MediaKind.IMAGE;
}
