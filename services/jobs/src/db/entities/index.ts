import { accountDeletionEntity } from '@atelier/account-deletion/entity';
import { JOBS_ACCOUNT_DELETIONS } from '../account-deletion-sql.js';
import { GenerationJobEntity } from './generation-jobs.entity.js';
import { JobEventEntity } from './job-events.entity.js';
import { JobHistoryEntity } from './job-histories.entity.js';
import { OutboxEntity } from './outbox.entity.js';
import { OperatorAuditEntity } from './operator-audit.entity.js';
import { OutboxReplayEntity } from './outbox-replays.entity.js';
import { ProviderCallEntity } from './provider-calls.entity.js';
import { ProviderCredentialEntity } from './provider-credentials.entity.js';
import { ProviderGateStateEntity, ProviderLimitEntity, SpendBudgetEntity } from './provider-gates.entity.js';
import { QuotaHitEntity } from './quota-hits.entity.js';
import { ReconciliationFindingEntity, ReconciliationRunEntity, ReconciliationVendorPredictionEntity } from './reconciliation.entity.js';

/** jobs.account_deletions: the kit's table (@atelier/account-deletion). */
const AccountDeletionEntity = accountDeletionEntity(JOBS_ACCOUNT_DELETIONS);

export {
  AccountDeletionEntity,
  GenerationJobEntity,
  JobEventEntity,
  JobHistoryEntity,
  OperatorAuditEntity,
  OutboxEntity,
  OutboxReplayEntity,
  ProviderCallEntity,
  ProviderCredentialEntity,
  ProviderGateStateEntity,
  ProviderLimitEntity,
  QuotaHitEntity,
  ReconciliationFindingEntity,
  ReconciliationRunEntity,
  ReconciliationVendorPredictionEntity,
  SpendBudgetEntity,
};

/** Every table of schema jobs, as MikroORM entities. */
export const jobsEntities = [
  GenerationJobEntity,
  JobEventEntity,
  OutboxEntity,
  JobHistoryEntity,
  OutboxReplayEntity,
  AccountDeletionEntity,
  QuotaHitEntity,
  ProviderCallEntity,
  ReconciliationRunEntity,
  ReconciliationVendorPredictionEntity,
  ReconciliationFindingEntity,
  ProviderCredentialEntity,
  SpendBudgetEntity,
  ProviderLimitEntity,
  ProviderGateStateEntity,
  OperatorAuditEntity,
] as const;
