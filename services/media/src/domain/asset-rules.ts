import { enumWords, mediaV1, type EnumWord } from '@atelier/contracts';
import { FailedPreconditionError, InvalidArgumentError } from '@atelier/errors';
import { imageSizeProblem, probeImage, type ImageFacts, type ImageType } from '@atelier/images';

/** How purposes and statuses are stored (the `purpose` and `status` columns): the contract's words. */
export type StoredPurpose = EnumWord<typeof mediaV1.AssetPurpose>;
export type StoredStatus = EnumWord<typeof mediaV1.AssetStatus>;

export const MAX_ASSET_BYTES = 20 * 1024 * 1024;
export const ALLOWED_CONTENT_TYPES: readonly ImageType[] = ['image/png', 'image/jpeg', 'image/webp'];

const PURPOSES = enumWords(mediaV1.AssetPurpose);
const STATUSES = enumWords(mediaV1.AssetStatus);
const USER_PURPOSES: ReadonlySet<StoredPurpose> = new Set(['post_image', 'user_avatar', 'pet_avatar', 'ai_input']);
const SERVER_PURPOSES: ReadonlySet<StoredPurpose> = new Set(['ai_output']);

export function purposeMessage(stored: string): mediaV1.AssetPurpose {
  return PURPOSES.fromWord(stored) ?? mediaV1.AssetPurpose.UNSPECIFIED;
}

export function statusMessage(stored: string): mediaV1.AssetStatus {
  return STATUSES.fromWord(stored) ?? mediaV1.AssetStatus.UNSPECIFIED;
}

/** The stored word of a purpose, or undefined for UNSPECIFIED and values the contract does not know. */
export function storedPurposeOf(purpose: mediaV1.AssetPurpose): StoredPurpose | undefined {
  return PURPOSES.wordOf(purpose);
}

/** A purpose a user may upload for; ai_output is written by the server only. */
export function requireUserPurpose(purpose: mediaV1.AssetPurpose): StoredPurpose {
  const stored = PURPOSES.wordOf(purpose);
  if (stored && USER_PURPOSES.has(stored)) return stored;
  throw new InvalidArgumentError(
    'purpose',
    'must be one of post_image, user_avatar, pet_avatar, ai_input (ai_output is written by the server only)',
  );
}

export function requireServerPurpose(purpose: mediaV1.AssetPurpose): StoredPurpose {
  const stored = PURPOSES.wordOf(purpose);
  if (stored && SERVER_PURPOSES.has(stored)) return stored;
  throw new InvalidArgumentError('purpose', 'must be ai_output for server-written assets');
}

export function requireContentType(contentType: string): ImageType {
  const normalised = contentType.trim().toLowerCase() as ImageType;
  if (!ALLOWED_CONTENT_TYPES.includes(normalised)) {
    throw new InvalidArgumentError('content_type', `must be one of ${ALLOWED_CONTENT_TYPES.join(', ')}`);
  }
  return normalised;
}

export function requireSize(sizeBytes: number): number {
  if (!Number.isInteger(sizeBytes) || sizeBytes < 1 || sizeBytes > MAX_ASSET_BYTES) {
    throw new InvalidArgumentError('size_bytes', `must be between 1 and ${MAX_ASSET_BYTES} bytes (20 MiB)`);
  }
  return sizeBytes;
}

/**
 * Checks stored bytes against what was declared: the magic bytes must say PNG, JPEG or WebP,
 * match the declared type, and keep each side within the limits of `@atelier/images` (64–8192 px).
 * Refusals name the rule as reason.
 */
export function verifyImage(bytes: Buffer, declaredType: string, declaredSize: number): ImageFacts {
  if (bytes.length !== declaredSize) {
    throw new FailedPreconditionError('UPLOAD_SIZE_MISMATCH', `the object has ${bytes.length} bytes, ${declaredSize} were declared`);
  }
  return verifyImageHeader(bytes, declaredType);
}

/**
 * How much of an upload completion reads to find the type and size. PNG and WebP say both in
 * their first 30 bytes; a JPEG's frame header follows its metadata segments (EXIF, ICC, XMP),
 * which can be tens of kilobytes. A JPEG whose frame starts later is refused as not an image.
 */
export const IMAGE_HEADER_BYTES = 512 * 1024;

/** verifyImage's type and dimension rules on the first bytes of an image (its size checked apart). */
export function verifyImageHeader(bytes: Buffer, declaredType: string): ImageFacts {
  const facts = probeImage(bytes);
  if (!facts) throw new FailedPreconditionError('UPLOAD_NOT_AN_IMAGE', 'the bytes are not a PNG, JPEG or WebP image');
  if (facts.contentType !== declaredType) {
    throw new FailedPreconditionError('UPLOAD_CONTENT_TYPE_MISMATCH', `the bytes are ${facts.contentType}, ${declaredType} was declared`);
  }
  const sizeProblem = imageSizeProblem(facts.width, facts.height);
  if (sizeProblem) throw new FailedPreconditionError('UPLOAD_DIMENSIONS_OUT_OF_RANGE', `the image is ${sizeProblem}`);
  return facts;
}
