import { catalogV1 } from '@atelier/contracts';
import type { AppError } from '@atelier/errors';
import type { PromiseClient } from '@atelier/grpc';
import { connectOperatorApi, peerError, type OperatorAccess, type OperatorApi } from './operator-grpc.js';

/**
 * The catalog API (`atelier.catalog.v1.CatalogService`) over mutual TLS with the operator's `ops`
 * certificate: catalog lets `ops` list every entry and enable or disable one, nothing else.
 */
export type CatalogClient = PromiseClient<catalogV1.CatalogServiceClient>;

const CATALOG_API: OperatorApi<catalogV1.CatalogServiceClient, 'CATALOG_ADDR'> = {
  client: catalogV1.CatalogServiceClient,
  api: 'the catalog API',
  variable: 'CATALOG_ADDR',
  component: 'catalog',
  reason: 'CATALOG_UNREACHABLE',
};

export function connectCatalog(config: OperatorAccess<'CATALOG_ADDR'>, timeoutMs: number): CatalogClient {
  return connectOperatorApi(CATALOG_API, config, timeoutMs);
}

/** A failed catalog call, with a way forward when catalog could not be reached at all. */
export function catalogError(error: unknown, address: string, namespace: string): AppError {
  return peerError(error, CATALOG_API, address, namespace);
}
