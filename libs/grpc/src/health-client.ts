import { createRequire } from 'node:module';
import { credentials, loadPackageDefinition, type Client, type ServiceError } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { channelCredentialsOf, tlsChannelOptions, type GrpcSecurity } from './transport-security.js';

const require = createRequire(import.meta.url);

type HealthClient = Client & {
  check(req: { service: string }, opts: object, cb: (e: ServiceError | null, r: { status: string }) => void): void;
};
type HealthConstructor = new (address: string, creds: ReturnType<typeof credentials.createInsecure>, options?: object) => HealthClient;

/** How to reach a server's health: in plaintext (its health port) or over mutual TLS (its main port). */
export interface HealthCheckTarget {
  address: string;
  /** Present this certificate and expect a server proving `serverName`. */
  tls?: { security: GrpcSecurity; serverName: string };
}
let Health: HealthConstructor | undefined;

function healthConstructor(): HealthConstructor {
  if (!Health) {
    const definition = loadSync(require.resolve('grpc-health-check/proto/health/v1/health.proto'), {
      enums: String,
      keepCase: true,
      defaults: true,
    });
    Health = (loadPackageDefinition(definition) as unknown as { grpc: { health: { v1: { Health: HealthConstructor } } } }).grpc.health.v1
      .Health;
  }
  return Health;
}

/**
 * Asks a server's standard `grpc.health.v1.Health/Check` about a service ("" = the server) and
 * answers its status (`SERVING`, `NOT_SERVING` …). Rejects when the server does not answer.
 */
export async function checkHealth(target: string | HealthCheckTarget, service = '', timeoutMs = 3_000): Promise<string> {
  const { address, tls } = typeof target === 'string' ? { address: target, tls: undefined } : target;
  const creds = tls ? channelCredentialsOf(tls.security, tls.serverName) : credentials.createInsecure();
  const client = new (healthConstructor())(address, creds, tls ? tlsChannelOptions(tls.serverName) : {});
  try {
    return await new Promise<string>((resolve, reject) =>
      client.check({ service }, { deadline: Date.now() + timeoutMs }, (error, response) =>
        error ? reject(error) : resolve(response.status),
      ),
    );
  } finally {
    client.close();
  }
}
