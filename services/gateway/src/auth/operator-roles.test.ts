import { describe, expect, it } from 'vitest';
import { operatorRoleOf, roleAllows } from './operator-roles.js';

describe('operator roles', () => {
  it('takes the highest operator role of a token, ignoring roles that are not operator roles', () => {
    expect(operatorRoleOf([])).toBeNull();
    expect(operatorRoleOf(['beta-tester', 'toString', '__proto__'])).toBeNull();
    expect(operatorRoleOf(['viewer'])).toBe('viewer');
    expect(operatorRoleOf(['operator', 'viewer'])).toBe('operator');
    expect(operatorRoleOf(['viewer', 'super_admin', 'admin'])).toBe('super_admin');
  });

  it('lets a role do what the roles below it may, and nothing above', () => {
    expect(roleAllows('viewer', 'viewer')).toBe(true);
    expect(roleAllows('viewer', 'operator')).toBe(false);
    expect(roleAllows('operator', 'viewer')).toBe(true);
    expect(roleAllows('admin', 'super_admin')).toBe(false);
    expect(roleAllows('super_admin', 'admin')).toBe(true);
    expect(roleAllows(null, 'viewer')).toBe(false);
  });
});
