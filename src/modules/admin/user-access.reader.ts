import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { USER_MODEL_TYPE } from './entities/user.entity.js';

export interface UserAccess {
  roles: string[];
  permissions: Set<string>;
}

/** A user's role names and effective permissions (through roles and direct grants), in one query. */
@Injectable()
export class UserAccessReader {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async forUser(userId: number): Promise<UserAccess> {
    return (await this.forUsers([userId])).get(userId) ?? { roles: [], permissions: new Set() };
  }

  async forUsers(userIds: number[]): Promise<Map<number, UserAccess>> {
    const result = new Map<number, UserAccess>(
      userIds.map((id) => [id, { roles: [], permissions: new Set<string>() }]),
    );
    if (userIds.length === 0) return result;
    const marks = userIds.map(() => '?').join(', ');
    const rows: { model_id: number | string; role: string | null; permission: string | null }[] =
      await this.dataSource.query(
        `SELECT mr.model_id, r.name AS role, p.name AS permission
         FROM model_has_roles mr
         JOIN roles r ON r.id = mr.role_id
         LEFT JOIN role_has_permissions rp ON rp.role_id = r.id
         LEFT JOIN permissions p ON p.id = rp.permission_id
        WHERE mr.model_type = ? AND mr.model_id IN (${marks})
       UNION ALL
       SELECT mp.model_id, NULL AS role, p.name AS permission
         FROM model_has_permissions mp
         JOIN permissions p ON p.id = mp.permission_id
        WHERE mp.model_type = ? AND mp.model_id IN (${marks})`,
        [USER_MODEL_TYPE, ...userIds, USER_MODEL_TYPE, ...userIds],
      );
    for (const row of rows) {
      const access = result.get(Number(row.model_id));
      if (!access) continue;
      if (row.role && !access.roles.includes(row.role)) access.roles.push(row.role);
      if (row.permission) access.permissions.add(row.permission);
    }
    for (const access of result.values()) access.roles.sort();
    return result;
  }
}
