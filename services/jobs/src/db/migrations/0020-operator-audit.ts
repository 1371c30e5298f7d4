import { operatorAuditTableSql } from '@atelier/operator-audit';
import { Migration } from '@atelier/orm';

/**
 * jobs.operator_audit: every operator action on what this service owns, written in the
 * transaction of its change (libs/operator-audit), append-only by trigger (docs/operator-audit.md).
 */
export class OperatorAudit extends Migration {
  override up(): void {
    for (const statement of operatorAuditTableSql('jobs')) this.addSql(statement);
  }
}
