import { catalogV1, jobsAdminV1, jobsCredentialsV1, jobsUsageV1 } from '@atelier/contracts';
import type { OperatorApi } from './operator-grpc.js';

/**
 * The jobs operator API (`atelier.jobs.v1.JobsAdminService`): jobs lets the identity `ops` (and
 * the gateway, which checks the admin role for HTTP callers) call it, so an operator needs a
 * certificate for `spiffe://<trust domain>/svc/ops` from the platform's CA.
 */
export const JOBS_ADMIN_API: OperatorApi<jobsAdminV1.JobsAdminServiceClient, 'JOBS_ADDR'> = {
  client: jobsAdminV1.JobsAdminServiceClient,
  api: 'the jobs admin API',
  variable: 'JOBS_ADDR',
  component: 'jobs',
  reason: 'JOBS_UNREACHABLE',
};

/**
 * The usage ledger's reads (`atelier.jobs.v1.ProviderUsageService`) on the same jobs address and
 * `ops` certificate: spend, top spenders, a job's calls (docs/usage-ledger.md).
 */
export const USAGE_API: OperatorApi<jobsUsageV1.ProviderUsageServiceClient, 'JOBS_ADDR'> = {
  client: jobsUsageV1.ProviderUsageServiceClient,
  api: 'the jobs usage API',
  variable: 'JOBS_ADDR',
  component: 'jobs',
  reason: 'JOBS_UNREACHABLE',
};

/**
 * The catalog API (`atelier.catalog.v1.CatalogService`), with the same `ops` certificate: catalog
 * lets `ops` list every entry and enable or disable one, nothing else.
 */
export const CATALOG_API: OperatorApi<catalogV1.CatalogServiceClient, 'CATALOG_ADDR'> = {
  client: catalogV1.CatalogServiceClient,
  api: 'the catalog API',
  variable: 'CATALOG_ADDR',
  component: 'catalog',
  reason: 'CATALOG_UNREACHABLE',
};

/**
 * Users' vendor keys (`atelier.jobs.v1.ProviderCredentialsService`), with the same `ops`
 * certificate: jobs lets `ops` call RewrapCredentials only (never read a key).
 */
export const CREDENTIALS_API: OperatorApi<jobsCredentialsV1.ProviderCredentialsServiceClient, 'JOBS_ADDR'> = {
  client: jobsCredentialsV1.ProviderCredentialsServiceClient,
  api: 'the jobs credentials API',
  variable: 'JOBS_ADDR',
  component: 'jobs',
  reason: 'JOBS_UNREACHABLE',
};
