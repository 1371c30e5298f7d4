/**
 * The operators' roles, least to most (docs/operator-roles.md): each may do all that the roles
 * before it may. `viewer` reads the console; `operator` also acts on jobs and the outbox (cancel,
 * retry, replay, acknowledge); `admin` also changes the catalog, budgets and limits; `super_admin`
 * also sees what the platform keeps from users' eyes (internal error messages).
 */
export const OPERATOR_ROLES = ['viewer', 'operator', 'admin', 'super_admin'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

const RANK: Readonly<Record<OperatorRole, number>> = { viewer: 1, operator: 2, admin: 3, super_admin: 4 };

/** The highest operator role among a token's roles; null: the caller is no operator. */
export function operatorRoleOf(roles: readonly string[]): OperatorRole | null {
  let highest: OperatorRole | null = null;
  for (const role of roles) {
    if (Object.hasOwn(RANK, role) && (highest === null || RANK[role as OperatorRole] > RANK[highest])) highest = role as OperatorRole;
  }
  return highest;
}

/** Whether a caller of this operator role may do what `needed` may. */
export function roleAllows(role: OperatorRole | null, needed: OperatorRole): boolean {
  return role !== null && RANK[role] >= RANK[needed];
}
