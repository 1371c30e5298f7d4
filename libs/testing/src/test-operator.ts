import type { commonV1 } from '@atelier/contracts';

/** The operator tests act as when they call an operator RPC directly: every such call needs an actor (the audit log's). */
export const TEST_OPERATOR_ACTOR: commonV1.OperatorActor = { subject: 'ops-test', role: 'admin', route: 'test' };
