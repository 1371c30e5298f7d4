import type { commonV1 } from '@atelier/contracts';
import { InvalidArgumentError } from '@atelier/errors';
import { requireText, requireUserId } from '@atelier/validation';
import { MAX_AUDIT_ROUTE_LENGTH } from './operator-audit-table.js';

/** The roles an action may be taken in: the console's (docs/operator-roles.md), and atelier-ops'. */
export const ACTOR_ROLES = ['viewer', 'operator', 'admin', 'super_admin', 'cli'] as const;
export type ActorRole = (typeof ACTOR_ROLES)[number];

/** Who asks for an operator action, checked. */
export interface OperatorActor {
  subject: string;
  role: ActorRole;
  route: string;
}

/**
 * The actor every operator RPC that changes something requires: an action nobody can be named
 * for is refused before it does anything, so the audit log has no anonymous rows.
 */
export function requireOperatorActor(actor: commonV1.OperatorActor | undefined): OperatorActor {
  if (!actor) throw new InvalidArgumentError('actor', 'is required: every operator action is audited under who asked');
  const subject = requireUserId(actor.subject, 'actor.subject');
  if (!(ACTOR_ROLES as readonly string[]).includes(actor.role)) {
    throw new InvalidArgumentError('actor.role', `must be one of ${ACTOR_ROLES.join(', ')}`);
  }
  const route = requireText(actor.route, 'actor.route', MAX_AUDIT_ROUTE_LENGTH);
  return { subject, role: actor.role as ActorRole, route };
}
