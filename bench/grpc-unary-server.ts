// The server of bench/grpc-unary.ts, in a process of its own: the platform's gRPC server bootstrap
// (mutual TLS, per-method authorization, the call observer off) with a GetModel that answers at once.
import { catalogV1, loadDescriptorSet } from '@atelier/contracts';
import { loadGrpcSecurity, registerService, startGrpcServer } from '@atelier/grpc';

const silent = { debug: () => {}, info: () => {}, error: () => {} };
const notUsed = async (): Promise<never> => {
  throw new Error('not used');
};
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
      {
        getModel: async () => ({ model }),
        getCatalog: notUsed,
        getStyle: notUsed,
        listCatalogEntries: notUsed,
        upsertModel: notUsed,
        upsertStyle: notUsed,
        setModelEnabled: notUsed,
        setStyleEnabled: notUsed,
        getStylePreview: notUsed,
        setModelPrice: notUsed,
        listAuditEntries: notUsed,
      },
      silent,
      { gateway: ['getModel'] },
    ),
  ],
});
