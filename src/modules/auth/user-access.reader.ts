import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { USER_MODEL_TYPE } from '../../common/auth/auth-user.js';
import { Database, type Sql } from '../../common/persistence/database.js';

export interface UserAccess {
  roles: string[];
  permissions: Set<string>;
}

/** Users whose permissions one process keeps at a time; each entry is a few hundred bytes. */
const CACHED_USERS = 10_000;

/** A user's role names and effective permissions (through roles and direct grants), in one query. */
@Injectable()
export class UserAccessReader {
  /** Keyed by user and `users.access_version`, which every role or permission change increments. */
  private readonly cache = new LRUCache<string, UserAccess>({ max: CACHED_USERS });

  constructor(private readonly db: Database) {}

  /**
   * The user's access as of `version`, the `access_version` the caller has just read with the
   * user's token: an entry under an older version is never used, so a change of roles takes effect
   * on the user's next request on every instance.
   */
  async forUserAtVersion(userId: number, version: number): Promise<UserAccess> {
    const key = `${userId}:${version}`;
    const cached = this.cache.get(key);
    if (cached) return cached;
    const access = await this.forUser(userId);
    this.cache.set(key, access);
    return access;
  }

  /** `sql`: the transaction the caller is in, if any. */
  async forUser(userId: number, sql: Pick<Sql, 'query'> = this.db): Promise<UserAccess> {
    return (await this.forUsers([userId], sql)).get(userId) ?? { roles: [], permissions: new Set() };
  }

  async forUsers(userIds: number[], sql: Pick<Sql, 'query'> = this.db): Promise<Map<number, UserAccess>> {
    const result = new Map<number, UserAccess>(
      userIds.map((id) => [id, { roles: [], permissions: new Set<string>() }]),
    );
    if (userIds.length === 0) return result;
    const marks = userIds.map(() => '?').join(', ');
    const rows = await sql.query<{ model_id: number | string; role: string | null; permission: string | null }>(
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

/** The counter whose increment, in the transaction that changes a user's access, makes every cached copy stale. */
export const ACCESS_VERSION_COLUMN = 'access_version';
