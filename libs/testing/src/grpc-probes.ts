import { createRequire } from 'node:module';
import { loadPackageDefinition, type ChannelCredentials, type Client } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { channelCredentialsOf, tlsChannelOptions, type GrpcSecurity } from '@atelier/grpc';

const require = createRequire(import.meta.url);

type GrpcClientCtor = new (address: string, creds: ChannelCredentials, options?: object) => Client;

function loadService(protoFile: string, path: string[]): GrpcClientCtor {
  const definition = loadSync(protoFile, { enums: String, keepCase: true, longs: String, defaults: true });
  let node: unknown = loadPackageDefinition(definition);
  for (const part of path) node = (node as Record<string, unknown>)[part];
  return node as GrpcClientCtor;
}

/** Lists the services a server exposes through gRPC server reflection (v1), called over mutual TLS. */
export async function listReflectedServices(address: string, security: GrpcSecurity, serverName: string): Promise<string[]> {
  const protoFile = require.resolve('@grpc/reflection/build/proto/grpc/reflection/v1/reflection.proto');
  const Reflection = loadService(protoFile, ['grpc', 'reflection', 'v1', 'ServerReflection']);
  const client = new Reflection(address, channelCredentialsOf(security, serverName), tlsChannelOptions(serverName)) as Client & {
    ServerReflectionInfo(opts: object): NodeJS.ReadWriteStream & { write(m: object): boolean; end(): void };
  };
  try {
    return await new Promise<string[]>((resolve, reject) => {
      const stream = client.ServerReflectionInfo({ deadline: Date.now() + 3000 });
      stream.on('data', (response: { list_services_response?: { service: { name: string }[] } }) => {
        resolve((response.list_services_response?.service ?? []).map((s) => s.name).sort());
        stream.end();
      });
      stream.on('error', reject);
      stream.write({ list_services: '' });
    });
  } finally {
    client.close();
  }
}

export { checkHealth } from '@atelier/grpc';
