import { BinaryReader, BinaryWriter } from '@bufbuild/protobuf/wire';
import { credentials, makeGenericClientConstructor, type Client, type ServiceError } from '@grpc/grpc-js';
import { channelCredentialsOf, tlsChannelOptions, type GrpcSecurity } from './transport-security.js';

/** How to reach a server's health: in plaintext (its health port) or over mutual TLS (its main port). */
export interface HealthCheckTarget {
  address: string;
  /** Present this certificate and expect a server proving `serverName`. */
  tls?: { security: GrpcSecurity; serverName: string };
}

/** `grpc.health.v1.HealthCheckResponse.ServingStatus`, by number. */
const SERVING_STATUS = ['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'] as const;

/**
 * `grpc.health.v1.Health/Check` with its two one-field messages coded here: a client of the
 * standard health service that loads no .proto at run time (@grpc/proto-loader and protobufjs are
 * about 10 MB of memory in a process that only asks its peers how they are, like the gateway).
 */
/** The value of a message's field 1, read with `read`, or `fallback` when absent. */
function fieldOne<T>(bytes: Uint8Array, wireType: number, read: (reader: BinaryReader) => T, fallback: T): T {
  const reader = new BinaryReader(bytes);
  let value = fallback;
  while (reader.pos < reader.len) {
    const [field, type] = reader.tag();
    if (field === 1 && type === wireType) value = read(reader);
    else reader.skip(type);
  }
  return value;
}

const healthService = {
  check: {
    path: '/grpc.health.v1.Health/Check',
    requestStream: false,
    responseStream: false,
    // HealthCheckRequest { string service = 1; }
    requestSerialize: (request: { service: string }) => Buffer.from(new BinaryWriter().uint32(10).string(request.service).finish()),
    requestDeserialize: (bytes: Buffer) => ({ service: fieldOne(bytes, 2, (reader) => reader.string(), '') }),
    // HealthCheckResponse { ServingStatus status = 1; }
    responseSerialize: (response: { status: string }) =>
      Buffer.from(
        new BinaryWriter()
          .uint32(8)
          .int32(Math.max(0, SERVING_STATUS.indexOf(response.status as never)))
          .finish(),
      ),
    responseDeserialize: (bytes: Buffer) => ({ status: SERVING_STATUS[fieldOne(bytes, 0, (reader) => reader.int32(), 0)] ?? 'UNKNOWN' }),
  },
};

type HealthClient = Client & {
  check(req: { service: string }, opts: object, cb: (e: ServiceError | null, r: { status: string }) => void): void;
};
const Health = makeGenericClientConstructor(healthService, 'grpc.health.v1.Health') as unknown as new (
  address: string,
  creds: ReturnType<typeof credentials.createInsecure>,
  options?: object,
) => HealthClient;

/**
 * Asks a server's standard `grpc.health.v1.Health/Check` about a service ("" = the server) and
 * answers its status (`SERVING`, `NOT_SERVING` …). Rejects when the server does not answer.
 */
export async function checkHealth(target: string | HealthCheckTarget, service = '', timeoutMs = 3_000): Promise<string> {
  const { address, tls } = typeof target === 'string' ? { address: target, tls: undefined } : target;
  const creds = tls ? channelCredentialsOf(tls.security, tls.serverName) : credentials.createInsecure();
  const client = new Health(address, creds, tls ? tlsChannelOptions(tls.serverName) : {});
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
