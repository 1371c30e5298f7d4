import { AppError, ErrorCode, isTransientHttpStatus } from '@atelier/errors';

/** Where a failed Kubernetes call went, for a message that says what to check. */
export interface KubeCallSite {
  /** What was being done, e.g. `list Deployments in namespace atelier`. */
  readonly action: string;
  readonly context: string;
  readonly server: string;
  readonly timeoutMs: number;
}

/** The message of a Kubernetes `Status` body (client-node hands the body over as text or as an object). */
function statusMessage(body: unknown): string | undefined {
  let parsed = body;
  if (typeof body === 'string') {
    try {
      parsed = JSON.parse(body) as unknown;
    } catch {
      return body.trim() || undefined;
    }
  }
  const message = (parsed as { message?: unknown } | null | undefined)?.message;
  return typeof message === 'string' && message !== '' ? message : undefined;
}

/** HTTP status of an ApiException (client-node's error for any non-2xx answer: code, body, headers). */
function httpStatus(error: unknown): number | undefined {
  if (!(error instanceof Error) || !('body' in error) || !('headers' in error)) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'number' && code >= 100 && code < 600 ? code : undefined;
}

/**
 * Why the request never got an answer, when it did not: fetch (undici, under client-node) fails
 * with a TypeError whose cause is the socket's error (ECONNREFUSED, ENOTFOUND, a TLS failure …).
 */
function networkFailure(error: unknown): string | undefined {
  if (!(error instanceof TypeError) || !(error.cause instanceof Error)) return undefined;
  const code = (error.cause as { code?: unknown }).code;
  return typeof code === 'string' ? code : error.cause.message;
}

/**
 * A failed call to the Kubernetes API as an AppError whose message tells the operator what to
 * do: refresh credentials (401), get RBAC (403), check the names (404), try again (5xx, network).
 */
export function kubeError(error: unknown, site: KubeCallSite): AppError {
  const where = `(context ${site.context}, ${site.server})`;
  const status = httpStatus(error);
  if (status !== undefined) {
    const detail = statusMessage((error as { body?: unknown }).body) ?? `HTTP ${status}`;
    const refused = (code: ErrorCode, reason: string, hint: string) =>
      new AppError(code, `cannot ${site.action}: ${detail} ${where}${hint ? `. ${hint}` : ''}`, { reason, cause: error });
    if (status === 401)
      return refused(ErrorCode.UNAUTHENTICATED, 'KUBE_UNAUTHENTICATED', 'Log in again or refresh the kubeconfig credentials');
    if (status === 403) {
      return refused(
        ErrorCode.PERMISSION_DENIED,
        'KUBE_FORBIDDEN',
        'atelier-ops needs list on deployments and horizontalpodautoscalers, and patch on deployments/scale, in the namespace',
      );
    }
    if (status === 404) return refused(ErrorCode.NOT_FOUND, 'KUBE_NOT_FOUND', '');
    if (status === 409) return refused(ErrorCode.ABORTED, 'KUBE_CONFLICT', 'Someone changed it meanwhile; run the command again');
    if (status === 400 || status === 422) return refused(ErrorCode.INVALID_ARGUMENT, 'KUBE_REJECTED', '');
    if (isTransientHttpStatus(status))
      return refused(ErrorCode.UNAVAILABLE, 'KUBE_UNAVAILABLE', 'The API server is overloaded or failing; try again');
    return refused(ErrorCode.INTERNAL, 'KUBE_UNEXPECTED_STATUS', '');
  }
  // AbortSignal.timeout aborts with a TimeoutError; an abort from elsewhere is an AbortError.
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return new AppError(
      ErrorCode.DEADLINE_EXCEEDED,
      `cannot ${site.action}: the Kubernetes API did not answer within ${site.timeoutMs} ms ${where}`,
      {
        reason: 'KUBE_TIMEOUT',
        cause: error,
      },
    );
  }
  const failure = networkFailure(error);
  if (failure !== undefined) {
    return new AppError(
      ErrorCode.UNAVAILABLE,
      `cannot reach the Kubernetes API server to ${site.action}: ${failure} ${where}. ` +
        'Is the cluster up, and is this the right context (--context)?',
      { reason: 'KUBE_UNREACHABLE', cause: error },
    );
  }
  return new AppError(ErrorCode.INTERNAL, `cannot ${site.action}: ${error instanceof Error ? error.message : String(error)} ${where}`, {
    reason: 'KUBE_FAILED',
    cause: error,
  });
}
