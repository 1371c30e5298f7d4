import { jobsExecutionV1 } from '@atelier/contracts';
import { InvalidArgumentError } from '@atelier/errors';
import type { ErrorClass } from './retry-policy.js';

const { ErrorClass: Message } = jobsExecutionV1;

const STORED: ReadonlyMap<jobsExecutionV1.ErrorClass, ErrorClass> = new Map([
  [Message.PROVIDER, 'provider'],
  [Message.VALIDATION, 'validation'],
  [Message.CONTENT_SAFETY, 'content_safety'],
  [Message.TIMEOUT, 'timeout'],
  [Message.CREDENTIAL, 'credential'],
  [Message.CANCELLED, 'cancelled'],
  [Message.INTERNAL, 'internal'],
]);

/** Error codes must belong to their class's family (SPEC §5): PROVIDER_*, VALIDATION_*, … */
const CODE_PREFIX: Readonly<Record<ErrorClass, string>> = {
  provider: 'PROVIDER_',
  validation: 'VALIDATION_',
  content_safety: 'CONTENT_SAFETY_',
  timeout: 'TIMEOUT',
  credential: 'CREDENTIAL_',
  cancelled: 'CANCELLED',
  internal: 'INTERNAL_',
};

export function requireErrorClass(errorClass: jobsExecutionV1.ErrorClass): ErrorClass {
  const stored = STORED.get(errorClass);
  if (!stored)
    throw new InvalidArgumentError(
      'error_class',
      'must be one of PROVIDER, VALIDATION, CONTENT_SAFETY, TIMEOUT, CREDENTIAL, CANCELLED, INTERNAL',
    );
  return stored;
}

export function requireErrorCode(errorClass: ErrorClass, code: string): string {
  if (!/^[A-Z][A-Z0-9_]{1,63}$/.test(code) || !code.startsWith(CODE_PREFIX[errorClass])) {
    throw new InvalidArgumentError('error_code', `must be an UPPER_SNAKE code starting with ${CODE_PREFIX[errorClass]} for this class`);
  }
  return code;
}

export function errorClassMessage(stored: string | null): jobsExecutionV1.ErrorClass | undefined {
  if (!stored) return undefined;
  for (const [message, value] of STORED) if (value === stored) return message;
  return undefined;
}
