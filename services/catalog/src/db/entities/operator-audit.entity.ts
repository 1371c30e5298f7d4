import { operatorAuditEntity } from '@atelier/operator-audit/entity';

/** catalog.operator_audit: the operators' actions on this service's data (libs/operator-audit). */
export const OperatorAuditEntity = operatorAuditEntity('catalog');
