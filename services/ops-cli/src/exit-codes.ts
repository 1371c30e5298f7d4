import { ConfigError } from '@atelier/config';
import { ErrorCode, isAppError } from '@atelier/errors';

/**
 * Exit statuses of atelier-ops. 0 and 1 are the usual "done" and "done, and the answer is no";
 * the others are BSD sysexits values — the services here already exit 78 on bad configuration —
 * so that a script can tell a typo (64) from an outage (69) from a refusal (1).
 */
export const ExitCode = {
  OK: 0,
  /** The command ran and the answer is negative: not ready, refused, not found. */
  FAILURE: 1,
  /** EX_USAGE: the command line is wrong. */
  USAGE: 64,
  /** EX_UNAVAILABLE: a system the command needs did not answer (Kubernetes API, jobs, NATS). */
  UNAVAILABLE: 69,
  /** EX_SOFTWARE: an error nobody anticipated — a bug. */
  SOFTWARE: 70,
  /** EX_NOPERM: the Kubernetes API (or another system) refused the credentials. */
  NO_PERMISSION: 77,
  /** EX_CONFIG: an environment variable or the kubeconfig is wrong. */
  CONFIG: 78,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** The one table from a domain error's code to the process's exit status. */
const EXIT_CODE_BY_ERROR_CODE: Readonly<Record<ErrorCode, ExitCode>> = {
  [ErrorCode.INVALID_ARGUMENT]: ExitCode.USAGE,
  [ErrorCode.NOT_FOUND]: ExitCode.FAILURE,
  [ErrorCode.ALREADY_EXISTS]: ExitCode.FAILURE,
  [ErrorCode.FAILED_PRECONDITION]: ExitCode.FAILURE,
  [ErrorCode.RESOURCE_EXHAUSTED]: ExitCode.FAILURE,
  [ErrorCode.ABORTED]: ExitCode.FAILURE,
  [ErrorCode.CANCELLED]: ExitCode.FAILURE,
  [ErrorCode.PERMISSION_DENIED]: ExitCode.NO_PERMISSION,
  [ErrorCode.UNAUTHENTICATED]: ExitCode.NO_PERMISSION,
  [ErrorCode.UNAVAILABLE]: ExitCode.UNAVAILABLE,
  [ErrorCode.DEADLINE_EXCEEDED]: ExitCode.UNAVAILABLE,
  [ErrorCode.INTERNAL]: ExitCode.SOFTWARE,
};

export function exitCodeFor(error: unknown): ExitCode {
  if (error instanceof ConfigError) return ExitCode.CONFIG;
  if (isAppError(error)) return EXIT_CODE_BY_ERROR_CODE[error.code];
  return ExitCode.SOFTWARE;
}

/** Of several outcomes (one per replayed event, one per status source), the one a script must see. */
export function worstExitCode(codes: readonly ExitCode[]): ExitCode {
  // A refusal (1) is less telling than "could not even ask" (69) or a broken setup (77, 78).
  const rank: readonly ExitCode[] = [
    ExitCode.OK,
    ExitCode.FAILURE,
    ExitCode.UNAVAILABLE,
    ExitCode.NO_PERMISSION,
    ExitCode.USAGE,
    ExitCode.CONFIG,
    ExitCode.SOFTWARE,
  ];
  return codes.reduce<ExitCode>((worst, code) => (rank.indexOf(code) > rank.indexOf(worst) ? code : worst), ExitCode.OK);
}
