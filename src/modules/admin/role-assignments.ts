import { Injectable } from '@nestjs/common';
import { In, type EntityManager } from 'typeorm';
import { isSuperAdmin, SUPER_ADMIN, type AuthUser } from '../../common/auth/auth-user.js';
import { GUARD_NAME } from '../../common/auth/permissions.js';
import { ApiException, ValidationFailed } from '../../common/http/api-exception.js';
import { Role } from './entities/role.entity.js';
import { USER_MODEL_TYPE } from './entities/user.entity.js';

const forbidden = () => new ApiException(403, { message: 'This action is unauthorized.' });

/** Role names ↔ model_has_roles rows, with the §8 rules on who may change which roles. */
@Injectable()
export class RoleAssignments {
  /** The roles named, or a 422 on `roles.N` for each unknown name. */
  async resolve(manager: EntityManager, names: string[]): Promise<Role[]> {
    const unique = [...new Set(names)];
    const roles = unique.length
      ? await manager.find(Role, { where: { name: In(unique), guard_name: GUARD_NAME } })
      : [];
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

  async replace(manager: EntityManager, userId: number, roles: Role[]): Promise<void> {
    await manager.delete('model_has_roles', { model_type: USER_MODEL_TYPE, model_id: userId });
    if (roles.length) {
      await manager.insert(
        'model_has_roles',
        roles.map((role) => ({ role_id: role.id, model_type: USER_MODEL_TYPE, model_id: userId })),
      );
    }
  }
}
