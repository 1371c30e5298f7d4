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
  ADMIN_SHUTDOWN: '57P01',
  CRASH_SHUTDOWN: '57P02',
  CANNOT_CONNECT_NOW: '57P03',
  TOO_MANY_CONNECTIONS: '53300',
} as const;

const TRANSIENT_SQL_STATES: ReadonlySet<string> = new Set([
  SqlState.SERIALIZATION_FAILURE,
  SqlState.DEADLOCK_DETECTED,
  SqlState.ADMIN_SHUTDOWN,
  SqlState.CRASH_SHUTDOWN,
  SqlState.CANNOT_CONNECT_NOW,
  SqlState.TOO_MANY_CONNECTIONS,
]);

const TRANSIENT_NETWORK_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']);

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
export function violatedConstraint(error: unknown): string | undefined {
  const constraint = (error as { constraint?: unknown } | undefined)?.constraint;
  return typeof constraint === 'string' ? constraint : undefined;
}

export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  return sqlStateOf(error) === SqlState.UNIQUE_VIOLATION && (constraint === undefined || violatedConstraint(error) === constraint);
}

export function isTransientDatabaseError(error: unknown): boolean {
  const state = sqlStateOf(error);
  if (state !== undefined) return TRANSIENT_SQL_STATES.has(state) || state.startsWith('08');
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && TRANSIENT_NETWORK_CODES.has(code);
}

/**
 * Runs `work` (a whole transaction) again when it fails transiently, with jittered exponential
 * backoff: 2 retries by default, 20 ms base.
 */
export async function retryTransient<T>(work: () => Promise<T>, options: { retries?: number; baseDelayMs?: number } = {}): Promise<T> {
  const retries = options.retries ?? 2;
  const baseDelayMs = options.baseDelayMs ?? 20;
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= retries || !isTransientDatabaseError(error)) throw error;
      const delay = baseDelayMs * 2 ** attempt * (0.5 + Math.random());
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
