import { catalogV1, loadDescriptorSet } from '@atelier/contracts';
import { registerService, startGrpcServer, type GrpcServerHandle, type GrpcServingOptions } from '@atelier/grpc';
import type { Logger } from '@atelier/logging';
import type { CatalogContext } from './catalog-context.js';
import { catalogCallerPolicy } from './rpc/caller-policy.js';
import { getCatalog } from './rpc/get-catalog.js';
import { getModel } from './rpc/get-model.js';
import { getStyle } from './rpc/get-style.js';
import { getStylePreview } from './rpc/get-style-preview.js';
import { listCatalogEntries } from './rpc/list-catalog-entries.js';
import { setModelEnabled, setStyleEnabled } from './rpc/set-enabled.js';
import { setModelPrice } from './rpc/set-model-price.js';
import { listCatalogAuditEntries } from './rpc/list-audit-entries.js';
import { upsertModel } from './rpc/upsert-model.js';
import { upsertStyle } from './rpc/upsert-style.js';

export const CATALOG_SERVICE_NAME = 'atelier.catalog.v1.CatalogService';

/** Serves atelier.catalog.v1.CatalogService over mutual TLS, with health (and reflection when enabled). */
export function startCatalogServer(context: CatalogContext, options: GrpcServingOptions & { logger: Logger }): Promise<GrpcServerHandle> {
  const handlers = {
    getCatalog: getCatalog(context),
    getModel: getModel(context),
    getStyle: getStyle(context),
    listCatalogEntries: listCatalogEntries(context),
    upsertModel: upsertModel(context),
    upsertStyle: upsertStyle(context),
    setModelEnabled: setModelEnabled(context),
    setStyleEnabled: setStyleEnabled(context),
    setModelPrice: setModelPrice(context),
    listAuditEntries: listCatalogAuditEntries(context),
    getStylePreview: getStylePreview(context),
  };
  return startGrpcServer({
    ...options,
    logger: options.logger,
    descriptorSet: loadDescriptorSet(),
    services: [registerService(CATALOG_SERVICE_NAME, catalogV1.CatalogServiceService, handlers, options.logger, catalogCallerPolicy)],
  });
}
