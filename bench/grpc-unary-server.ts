// The server of bench/grpc-unary.ts, in a process of its own: the platform's gRPC server bootstrap
// (mutual TLS, per-method authorization, the call observer off) with a GetModel that answers at once.
import { catalogV1, loadDescriptorSet } from '@atelier/contracts';
import { loadGrpcSecurity, registerService, startGrpcServer } from '@atelier/grpc';
import { unusedHandlers } from '@atelier/testing';

const silent = { debug: () => {}, info: () => {}, error: () => {} };
const model = catalogV1.Model.fromPartial({ id: 'm', code: 'bench-model', displayName: 'A model of about 200 bytes', providerCode: 'sim' });
await startGrpcServer({
  host: '127.0.0.1',
  port: Number(process.env.GRPC_PORT),
  healthPort: 0,
  security: loadGrpcSecurity(process.env as never),
  logger: silent,
  descriptorSet: loadDescriptorSet(),
  services: [
    registerService(
      'atelier.catalog.v1.CatalogService',
      catalogV1.CatalogServiceService,
      { ...unusedHandlers(catalogV1.CatalogServiceService), getModel: async () => ({ model }) },
      silent,
      { gateway: ['getModel'] },
    ),
  ],
});
// A clean exit on the bench's SIGTERM, so that a --cpu-prof profile is written.
process.once('SIGTERM', () => process.exit(0));
