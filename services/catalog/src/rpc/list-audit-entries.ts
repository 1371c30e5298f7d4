import type { catalogV1 } from '@atelier/contracts';
import type { Handler } from '@atelier/grpc';
import { listAuditEntries } from '@atelier/operator-audit';
import type { CatalogContext } from '../catalog-context.js';

type ListAuditEntries = Handler<typeof catalogV1.CatalogServiceService.listAuditEntries>;

/** catalog.operator_audit, newest first (the console's audit page merges it with jobs'). */
export function listCatalogAuditEntries({ pool }: CatalogContext): ListAuditEntries {
  return async (request) => listAuditEntries(pool, 'catalog', 'catalog', request.query);
}
