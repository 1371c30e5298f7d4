/**
 * Field rules every service applies the same way. Each returns the normalised value or throws
 * an InvalidArgumentError naming the field in the contract's snake_case spelling.
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
