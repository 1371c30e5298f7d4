import { catalogV1 } from '@atelier/contracts';
import type { AppError } from '@atelier/errors';
import { createServiceClient, type PromiseClient } from '@atelier/grpc';
import { OPERATOR_CALL_ATTEMPTS, operatorSecurity, peerError, type OperatorPeer } from './operator-grpc.js';
import type { OpsConfig } from './ops-config.js';

/**
 * The catalog API (`atelier.catalog.v1.CatalogService`) over mutual TLS with the operator's `ops`
 * certificate: catalog lets `ops` list every entry and enable or disable one, nothing else.
 */
export type CatalogClient = PromiseClient<catalogV1.CatalogServiceClient>;

type CatalogAccess = Pick<
  OpsConfig,
  'CATALOG_ADDR' | 'GRPC_TLS_CA_FILE' | 'GRPC_TLS_CERT_FILE' | 'GRPC_TLS_KEY_FILE' | 'GRPC_TRUST_DOMAIN'
>;

const CATALOG_API = 'the catalog API';

export function connectCatalog(config: CatalogAccess, timeoutMs: number): CatalogClient {
  return createServiceClient(catalogV1.CatalogServiceClient, config.CATALOG_ADDR, operatorSecurity(config, CATALOG_API), {
    defaultDeadlineMs: timeoutMs,
    maxAttempts: OPERATOR_CALL_ATTEMPTS,
  });
}

function catalogPeer(address: string): OperatorPeer {
  return { api: CATALOG_API, address, variable: 'CATALOG_ADDR', component: 'catalog', port: 50051, reason: 'CATALOG_UNREACHABLE' };
}

/** A failed catalog call, with a way forward when catalog could not be reached at all. */
export function catalogError(error: unknown, address: string, namespace: string): AppError {
  return peerError(error, catalogPeer(address), namespace);
}
