// What `npm start` answers on its status port: GET /readyz is 200 while every service is up, and
// 503 naming the ones that are not (starting, restarting, given up on, stopping) — with each
// service's state, pid, restarts and last exit either way.
import { createServer, type Server } from 'node:http';
import { type ServiceStatus } from './supervisor.js';

/** starting: services still being started · running: all started · stopping: Ctrl-C given. */
export type PlatformPhase = 'starting' | 'running' | 'stopping';

export interface PlatformReadiness {
  httpStatus: 200 | 503;
  body: { status: 'up' | 'starting' | 'degraded' | 'stopping'; notUp: string[]; services: ServiceStatus[] };
}

export function platformReadiness(phase: PlatformPhase, services: ServiceStatus[]): PlatformReadiness {
  const notUp = services.filter((service) => service.state !== 'up').map((service) => service.name);
  const status = phase === 'running' ? (notUp.length === 0 ? 'up' : 'degraded') : phase;
  return { httpStatus: status === 'up' ? 200 : 503, body: { status, notUp, services } };
}

/** Serves GET /readyz on 127.0.0.1:`port`; rejects with an actionable message when the port is taken. */
export async function startStatusServer(port: number, readiness: () => PlatformReadiness): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/readyz') {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"only GET /readyz is served here"}');
      return;
    }
    const { httpStatus, body } = readiness();
    response
      .writeHead(httpStatus, { 'content-type': 'application/json', 'cache-control': 'no-store' })
      .end(JSON.stringify(body, null, 2) + '\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(`the status port 127.0.0.1:${port} is taken (another npm start?): stop it, or set PLATFORM_STATUS_PORT`)
          : error,
      ),
    );
    server.listen(port, '127.0.0.1', resolve);
  });
  return server;
}
