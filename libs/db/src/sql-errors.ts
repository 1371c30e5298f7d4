import { UnavailableError, isConnectionLossSqlState, isTransientNetworkCode } from '@atelier/errors';

/**
 * PostgreSQL SQLSTATE codes the services act on. Transient ones are safe to retry: the
 * transaction was rolled back as a whole, so running it again cannot apply it twice.
 */
export const SqlState = {
  UNIQUE_VIOLATION: '23505',
  CHECK_VIOLATION: '23514',
  FOREIGN_KEY_VIOLATION: '23503',
  NOT_NULL_VIOLATION: '23502',
  SERIALIZATION_FAILURE: '40001',
  DEADLOCK_DETECTED: '40P01',
  LOCK_NOT_AVAILABLE: '55P03',
  // The states of a lost or refused connection (57P01–57P03, 53300, class 08) are @atelier/errors'
  // (isConnectionLossSqlState): the one classification of what is transient.
} as const;

/** The transaction lost a race and was rolled back as a whole: running it again is safe. */
const CONTENTION_SQL_STATES: ReadonlySet<string> = new Set([SqlState.SERIALIZATION_FAILURE, SqlState.DEADLOCK_DETECTED]);

/** What pg says, without a code, when a connection died, timed out or was never made. */
const CONNECTION_LOSS_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /has encountered a connection error and is not queryable/,
  /^Query read timeout/,
];

/** The SQLSTATE of a pg error, also when MikroORM wrapped it. */
export function sqlStateOf(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth += 1) {
    const candidate = current as { code?: unknown; sqlState?: unknown; cause?: unknown };
    if (typeof candidate.sqlState === 'string') return candidate.sqlState;
    if (typeof candidate.code === 'string' && /^[0-9A-Z]{5}$/.test(candidate.code)) return candidate.code;
    current = candidate.cause;
  }
  return undefined;
}

/** The constraint a violation names (e.g. `models_code_media_kind_key`). */
function violatedConstraint(error: unknown): string | undefined {
  const constraint = (error as { constraint?: unknown } | undefined)?.constraint;
  return typeof constraint === 'string' ? constraint : undefined;
}

export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  return sqlStateOf(error) === SqlState.UNIQUE_VIOLATION && (constraint === undefined || violatedConstraint(error) === constraint);
}

/**
 * The connection was lost, refused or timed out (SQLSTATE class 08, 57P0x, 53300, socket errors):
 * @atelier/errors' classification (isConnectionLossSqlState, isTransientNetworkCode), looked for
 * also under MikroORM's wrappers and in what pg says without a code.
 */
export function isConnectionLoss(error: unknown): boolean {
  const state = sqlStateOf(error);
  if (state !== undefined) return isConnectionLossSqlState(state);
  for (let current = error, depth = 0; current && depth < 5; depth += 1) {
    const { code, message, cause } = current as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof code === 'string' && isTransientNetworkCode(code)) return true;
    if (typeof message === 'string' && CONNECTION_LOSS_MESSAGES.some((pattern) => pattern.test(message))) return true;
    current = cause;
  }
  return false;
}

/** A failure that may pass: a lost connection, or a transaction that lost a race (rolled back as a whole). */
export function isTransientDatabaseError(error: unknown): boolean {
  const state = sqlStateOf(error);
  return (state !== undefined && CONTENTION_SQL_STATES.has(state)) || isConnectionLoss(error);
}

/**
 * What a caller sees of a transient database failure: UNAVAILABLE (503 with Retry-After at the
 * gateway), not a bug; undefined for any other error, which keeps its own meaning.
 */
export function databaseUnavailable(error: unknown): UnavailableError | undefined {
  if (error instanceof UnavailableError || !isTransientDatabaseError(error)) return undefined;
  return new UnavailableError('the database is unavailable right now; try again shortly', {
    reason: 'DATABASE_UNAVAILABLE',
    retryAfterSeconds: 1,
    cause: error,
  });
}
