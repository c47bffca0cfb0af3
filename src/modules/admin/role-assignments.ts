import { Injectable } from '@nestjs/common';
import { isSuperAdmin, SUPER_ADMIN, USER_MODEL_TYPE, type AuthUser } from '../../common/auth/auth-user.js';
import { GUARD_NAME } from '../../common/auth/permissions.js';
import type { Sql } from '../../common/persistence/sql.js';
import type { TenantTx } from '../../common/persistence/tables.js';
import { User } from '../auth/entities/user.entity.js';
import { ApiException, ValidationFailed } from '../../common/http/api-exception.js';
import { ACCESS_VERSION_COLUMN } from '../auth/user-access.reader.js';

const forbidden = () => new ApiException(403, { message: 'This action is unauthorized.' });

export interface RoleRef {
  id: number;
  name: string;
}

/** Role names ↔ model_has_roles rows, with the §8 rules on who may change which roles. */
@Injectable()
export class RoleAssignments {
  /** The roles named, or a 422 on `roles.N` for each unknown name. */
  async resolve(sql: Sql, names: string[]): Promise<RoleRef[]> {
    const unique = [...new Set(names)];
    const rows = unique.length
      ? await sql.query<{ id: number | string; name: string }>(
          `SELECT id, name FROM roles WHERE guard_name = ? AND name IN (${unique.map(() => '?').join(', ')})`,
          [GUARD_NAME, ...unique],
        )
      : [];
    const roles = rows.map((r) => ({ id: Number(r.id), name: r.name }));
    const errors: Record<string, string[]> = {};
    names.forEach((name, index) => {
      if (!roles.some((r) => r.name === name)) errors[`roles.${index}`] = [`The selected roles.${index} is invalid.`];
    });
    if (Object.keys(errors).length) throw new ValidationFailed(errors);
    return roles;
  }

  /** Only a super-admin grants or removes super-admin; nobody changes their own roles. */
  assertMayChange(caller: AuthUser, targetUserId: number | null, current: string[], next: string[]): void {
    const changes = current.length !== next.length || current.some((r) => !next.includes(r));
    if (!changes) return;
    if (targetUserId === caller.id) throw forbidden();
    const touchesSuperAdmin = current.includes(SUPER_ADMIN) !== next.includes(SUPER_ADMIN);
    if (touchesSuperAdmin && !isSuperAdmin(caller)) throw forbidden();
  }

  /** A non-super-admin may not edit or delete a super-admin. */
  assertMayManage(caller: AuthUser, targetRoles: string[]): void {
    if (targetRoles.includes(SUPER_ADMIN) && !isSuperAdmin(caller)) throw forbidden();
  }

  /** The roles of a user being created (no copy of their access is cached yet). */
  async assign(bookkeeping: Sql, userId: number, roles: RoleRef[]): Promise<void> {
    for (const role of roles) {
      await bookkeeping.run('INSERT INTO model_has_roles (role_id, model_type, model_id) VALUES (?, ?, ?)', [
        role.id,
        USER_MODEL_TYPE,
        userId,
      ]);
    }
  }

  /**
   * Replaces the user's roles (rows of model_has_roles, which the user record shows as `roles`): a
   * change of the user's record, recorded as such; every cached copy of their permissions goes
   * stale with it (users.access_version).
   */
  async replace(tx: TenantTx, bookkeeping: Sql, user: User, current: string[], roles: RoleRef[]): Promise<void> {
    const next = roles.map((r) => r.name).sort();
    if (next.length === current.length && next.every((name, i) => name === current[i])) return;
    await tx.table(User).claim(user.id, ACCESS_VERSION_COLUMN);
    await bookkeeping.run('DELETE FROM model_has_roles WHERE model_type = ? AND model_id = ?', [
      USER_MODEL_TYPE,
      user.id,
    ]);
    await this.assign(bookkeeping, user.id, roles);
    await tx.table(User).updateParts(user, { roles: next }, { roles: current });
  }

  /** A deleted user's roles and direct permissions. */
  async removeAll(bookkeeping: Sql, userId: number): Promise<void> {
    await bookkeeping.run('DELETE FROM model_has_roles WHERE model_type = ? AND model_id = ?', [
      USER_MODEL_TYPE,
      userId,
    ]);
    await bookkeeping.run('DELETE FROM model_has_permissions WHERE model_type = ? AND model_id = ?', [
      USER_MODEL_TYPE,
      userId,
    ]);
  }
}
