import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';
import { readToken } from './token';

/** The gateway's error body: `{ error: { code, name, message, requestId } }`. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: number | undefined,
    message: string,
    readonly requestId: string | undefined,
  ) {
    super(message);
  }
}

const bearer: Middleware = {
  onRequest({ request }) {
    const token = readToken();
    if (token) request.headers.set('authorization', `Bearer ${token}`);
    return request;
  },
};

/** The typed client of the gateway the console is served from (same origin). */
export const api = createClient<paths>({ baseUrl: window.location.origin });
api.use(bearer);

/** The data of an openapi-fetch answer, or its error as an ApiFailure (what react-query shows). */
export function unwrap<T>(answer: { data?: T; error?: unknown; response: Response }): T {
  if (answer.error !== undefined || answer.data === undefined) {
    const body = (answer.error ?? {}) as { error?: { code?: number; message?: string; requestId?: string } };
    throw new ApiFailure(
      answer.response.status,
      body.error?.code,
      body.error?.message ?? `the gateway answered ${answer.response.status}`,
      body.error?.requestId,
    );
  }
  return answer.data;
}
