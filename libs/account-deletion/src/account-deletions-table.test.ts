import { describe, expect, it } from 'vitest';
import { accountDeletionRequestsTable, accountDeletionsTable, accountDeletionsTableSql } from './account-deletions-table.js';

/**
 * The CREATE TABLE each service's migration ran when it was released, copied here to the letter:
 * databases have run these migrations, which now take their SQL from the kit, so the kit must
 * write what they wrote.
 */
const RELEASED_REQUESTS = `
      CREATE TABLE jobs.account_deletions (
        user_id           varchar(128) PRIMARY KEY,
        deletion_id       uuid         NOT NULL CONSTRAINT account_deletions_deletion_id_key UNIQUE,
        requested_at      timestamptz  NOT NULL DEFAULT now(),
        jobs_completed_at timestamptz,
        jobs_removed      integer      NOT NULL DEFAULT 0 CONSTRAINT account_deletions_jobs_removed_positive CHECK (jobs_removed >= 0)
      )`;
/** media 0004, community 0003 and webhooks 0002 ran the same table, each in its schema. */
const releasedPart = (schema: string) => `
      CREATE TABLE ${schema}.account_deletions (
        user_id      varchar(128) PRIMARY KEY,
        deletion_id  uuid         NOT NULL,
        started_at   timestamptz  NOT NULL DEFAULT now(),
        completed_at timestamptz,
        removed      integer      NOT NULL DEFAULT 0 CONSTRAINT account_deletions_removed_positive CHECK (removed >= 0)
      )`;

describe("account_deletions - the migrations' SQL", () => {
  it('is, for jobs (the requests), what jobs 0011-account-deletions ran', () => {
    expect(accountDeletionsTableSql(accountDeletionRequestsTable('jobs', 'jobs'))).toBe(RELEASED_REQUESTS);
  });

  it.each(['media', 'community', 'webhooks'] as const)('is, for %s (its part), what its migration ran', (schema) => {
    expect(accountDeletionsTableSql(accountDeletionsTable(schema))).toBe(releasedPart(schema));
  });
});
