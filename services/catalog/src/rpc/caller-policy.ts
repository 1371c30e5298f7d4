import type { catalogV1 } from '@atelier/contracts';
import type { CallerPolicy } from '@atelier/grpc';

/**
 * Who may call what (callers are the service identities of their certificates). The gateway
 * serves the catalog to users and edits it for admins (it checks the admin role itself); jobs
 * reads a model and a style when it validates a new job; the worker reads the enabled models to
 * check it can run each of them; the operator CLI (`atelier-ops catalog`)
 * lists every entry, shows or hides one and sets a model's price, and edits nothing else.
 */
export const catalogCallerPolicy: CallerPolicy<typeof catalogV1.CatalogServiceService> = {
  gateway: 'all',
  jobs: ['getModel', 'getStyle'],
  // The check that it can run every enabled model: at start-up, after each catalog change notice
  // (services/worker/src/peers/catalog-coverage-check.ts).
  worker: ['getCatalog'],
  ops: ['listCatalogEntries', 'setModelEnabled', 'setStyleEnabled', 'setModelPrice'],
};
