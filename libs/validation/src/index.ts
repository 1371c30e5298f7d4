/**
 * Field rules every service applies the same way, and the bounds of user input (limits.ts). Each
 * rule returns the normalised value or throws an InvalidArgumentError naming the field in the
 * contract's snake_case spelling.
 */
export {
  requireUuid,
  isUuid,
  requireUserId,
  requireIdempotencyKey,
  requireText,
  requireNoNul,
  requireIntInRange,
  USER_ID_PATTERN,
} from './field-rules.js';
export {
  MAX_PROMPT_LENGTH,
  MAX_NEGATIVE_PROMPT_LENGTH,
  MAX_PROMPT_PRESET_LENGTH,
  MAX_EFFECTIVE_PROMPT_LENGTH,
  MAX_IDEMPOTENCY_KEY_LENGTH,
  MAX_USER_ID_LENGTH,
  MAX_POST_TITLE_LENGTH,
  MAX_POST_CONTENT_LENGTH,
  MAX_MEDIA_PER_POST,
  MAX_MODEL_DISPLAY_NAME_LENGTH,
  MAX_PROVIDER_MODEL_LENGTH,
  MAX_MODEL_VERSION_LENGTH,
  MAX_STYLE_TITLE_LENGTH,
  MAX_STYLE_SUBTITLE_LENGTH,
  CATALOG_SORT_ORDER_LIMIT,
  MAX_WEBHOOK_URL_LENGTH,
  MAX_WEBHOOK_DESCRIPTION_LENGTH,
  MAX_PAGE_SIZE,
  DEFAULT_PAGE_SIZE,
} from './limits.js';
