import { ConfigError } from '@atelier/config';
import { isAppError } from '@atelier/errors';

/**
 * An error as one or more lines for stderr, without the `atelier-ops:` prefix: its stable
 * label (the reason, else the canonical code) and its message. Stack traces only on request:
 * an operator needs what to do, not where in the code it happened.
 */
export function errorText(error: unknown, options: { debug: boolean }): string {
  if (error instanceof ConfigError) return error.message;
  if (isAppError(error)) {
    const label = error.reason && error.reason !== error.code ? error.reason : error.code;
    const stack = options.debug && error.cause instanceof Error ? `\n${error.cause.stack ?? ''}` : '';
    return `${label}: ${error.message}${stack}`;
  }
  const message = error instanceof Error ? error.message : String(error);
  if (options.debug && error instanceof Error) return `unexpected error: ${error.stack ?? message}`;
  return `unexpected error: ${message} (a bug in atelier-ops; ATELIER_OPS_DEBUG=1 prints the stack trace)`;
}
