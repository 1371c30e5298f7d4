import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { TERMINAL_JOB_STATUSES } from '@atelier/contracts';
import { callerOf } from '../auth/authenticate.js';
import type { GatewayContext } from '../gateway-context.js';
import { ApiError, type ApiErrorName } from '../http/error-codes.js';
import { HttpError } from '../http/http-error.js';
import { idParam, lastEventIdHeaders, responses } from '../http/schemas.js';
import type { FinishedJobCache } from './finished-job-cache.js';
import { watchJobResuming } from './job-watch-stream.js';
import { StreamSlots } from './stream-slots.js';

/** When a user at the stream ceiling may try again: streams end with their job or their client. */
const STREAM_SLOT_RETRY_AFTER_SECONDS = 10;
/** setTimeout's ceiling (about 24.8 days); a token valid for longer is re-armed, never overflowed. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Whether the client's connection is already gone (it may close while the auth hook awaits). */
function connectionGone(request: FastifyRequest, reply: FastifyReply): boolean {
  const socket = request.raw.socket as { destroyed?: boolean } | null | undefined;
  return !socket || socket.destroyed === true || reply.raw.destroyed || reply.raw.writableEnded;
}

const errorEvent = (name: ApiErrorName, message: string) =>
  `event: error\ndata: ${JSON.stringify({ code: ApiError[name].code, name, message })}\n\n`;

/**
 * `GET /api/v1/creation/jobs/{jobId}/events`: Server-Sent Events of the job's state from WatchJob
 * until it is terminal. Each event is `event: job`, `id: <job version>`, `data: <Job JSON>`; a
 * reconnect with `Last-Event-ID` resumes after that version (and so does the gateway itself when
 * the WatchJob call breaks UNAVAILABLE). A comment every SSE_KEEPALIVE_MS keeps proxies from
 * closing a quiet stream. A user holds at most SSE_MAX_STREAMS_PER_USER streams (429 / 42901
 * above); a stream ends with `event: error` (code 40102) when its token expires.
 */
export function registerJobEventsRoute(app: FastifyInstance, context: GatewayContext, finishedJobs: FinishedJobCache): void {
  const { peers } = context;
  const slots = new StreamSlots(context.sseMaxStreamsPerUser);
  app.get<{ Params: { jobId: string }; Headers: { 'last-event-id'?: string } }>(
    '/api/v1/creation/jobs/:jobId/events',
    {
      schema: {
        operationId: 'streamJobEvents',
        tags: ['creation'],
        summary: 'Server-Sent Events of the job until it is terminal (resumable with Last-Event-ID)',
        params: idParam('jobId'),
        headers: lastEventIdHeaders,
        response: responses({
          200: {
            description: '`job` events carrying Job JSON, until the job is terminal',
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
        }),
      },
    },
    async (request, reply) => {
      // The disconnect listener goes on before anything awaits: a client that aborts while the
      // job is looked up must not leave a WatchJob stream (and its re-reads) behind.
      const clientGone = new AbortController();
      reply.raw.once('close', () => clientGone.abort());
      if (connectionGone(request, reply)) clientGone.abort();
      const caller = callerOf(request);
      const release = slots.acquire(caller.userId);
      if (!release)
        throw new HttpError(
          'TOO_MANY_STREAMS',
          `at most ${context.sseMaxStreamsPerUser} job event streams at a time; close one or try again in ${STREAM_SLOT_RETRY_AFTER_SECONDS} s`,
          { 'retry-after': String(STREAM_SLOT_RETRY_AFTER_SECONDS) },
        );
      clientGone.signal.addEventListener('abort', release, { once: true });
      try {
        // Ownership and existence are answered as JSON errors before the stream starts.
        if (!clientGone.signal.aborted) await peers.jobs.getJob({ jobId: request.params.jobId, userId: caller.userId });
      } catch (error) {
        release();
        throw error;
      }
      if (clientGone.signal.aborted) {
        release();
        reply.hijack();
        reply.raw.destroy();
        return;
      }
      const afterVersion = Number(request.headers['last-event-id'] ?? 0);

      reply.hijack();
      const out = reply.raw;
      out.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
        'x-request-id': String(request.id),
      });
      out.write(': stream open\n\n');
      const keepAlive = setInterval(() => out.write(': keepalive\n\n'), context.sseKeepAliveMs);
      const tokenExpired = new AbortController();
      let expiryTimer: NodeJS.Timeout | undefined;
      const armExpiry = () => {
        const left = caller.validUntilMs - Date.now();
        expiryTimer = left <= 0 ? undefined : setTimeout(armExpiry, Math.min(left, MAX_TIMER_MS));
        if (left <= 0) tokenExpired.abort();
      };
      armExpiry();
      const open = (after: number) => peers.jobs.watchJob({ jobId: request.params.jobId, userId: caller.userId, afterVersion: after });
      try {
        const signal = AbortSignal.any([clientGone.signal, tokenExpired.signal]);
        for await (const update of watchJobResuming(open, afterVersion, { signal })) {
          const job = await finishedJobs.view(update, caller.userId);
          if (signal.aborted) break;
          out.write(`event: job\nid: ${job.version}\ndata: ${JSON.stringify(job)}\n\n`);
          if (TERMINAL_JOB_STATUSES.has(update.status)) break;
        }
        if (tokenExpired.signal.aborted && !out.destroyed)
          out.write(errorEvent('TOKEN_EXPIRED', 'the token has expired; reconnect with a fresh token and Last-Event-ID'));
      } catch (error) {
        if (!out.destroyed) out.write(errorEvent('UNAVAILABLE', 'the job stream was interrupted; reconnect with Last-Event-ID'));
        request.log.debug({ err: error }, 'job event stream ended early');
      } finally {
        clearInterval(keepAlive);
        clearTimeout(expiryTimer);
        clientGone.abort();
        release();
        out.end();
      }
    },
  );
}
