import type { FastifyInstance } from 'fastify';
import { callerOf } from '../auth/authenticate.js';
import type { GatewayContext } from '../gateway-context.js';
import { idParam, responses } from '../http/schemas.js';
import type { JobViews } from './job-view.js';
import { watchJobResuming, type WatchCall } from './job-watch-stream.js';

const TERMINAL = new Set(['succeeded', 'failed', 'cancelled']);

/**
 * `GET /api/v1/creation/jobs/{jobId}/events`: Server-Sent Events of the job's state from WatchJob
 * until it is terminal. Each event is `event: job`, `id: <job version>`, `data: <Job JSON>`; a
 * reconnect with `Last-Event-ID` resumes after that version (and so does the gateway itself when
 * the WatchJob call breaks UNAVAILABLE). A comment every SSE_KEEPALIVE_MS keeps proxies from
 * closing a quiet stream.
 */
export function registerJobEventsRoute(app: FastifyInstance, context: GatewayContext, jobViews: JobViews): void {
  const { peers } = context;
  app.get<{ Params: { jobId: string }; Headers: { 'last-event-id'?: string } }>(
    '/api/v1/creation/jobs/:jobId/events',
    {
      schema: {
        tags: ['creation'],
        summary: 'Server-Sent Events of the job until it is terminal (resumable with Last-Event-ID)',
        params: idParam('jobId'),
        headers: { type: 'object', properties: { 'last-event-id': { type: 'string', pattern: '^[0-9]{1,15}$' } } },
        response: responses({ 200: { type: 'string', description: 'text/event-stream of `job` events carrying Job JSON' } }),
      },
    },
    async (request, reply) => {
      const caller = callerOf(request);
      // Ownership and existence are answered as JSON errors before the stream starts.
      await peers.jobs.getJob({ jobId: request.params.jobId, userId: caller.userId });
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
      const clientGone = new AbortController();
      request.raw.on('close', () => clientGone.abort());
      const open = (after: number) =>
        peers.jobs.raw.watchJob({ jobId: request.params.jobId, userId: caller.userId, afterVersion: after }) as unknown as WatchCall;
      try {
        for await (const update of watchJobResuming(open, afterVersion, { signal: clientGone.signal })) {
          const job = await jobViews.view(update, caller.userId);
          out.write(`event: job\nid: ${job.version}\ndata: ${JSON.stringify(job)}\n\n`);
          if (TERMINAL.has(job.status)) break;
        }
      } catch (error) {
        if (!out.destroyed)
          out.write(
            `event: error\ndata: ${JSON.stringify({ message: 'the job stream was interrupted; reconnect with Last-Event-ID' })}\n\n`,
          );
        request.log.debug({ err: error }, 'job event stream ended early');
      } finally {
        clearInterval(keepAlive);
        clientGone.abort();
        out.end();
      }
    },
  );
}
