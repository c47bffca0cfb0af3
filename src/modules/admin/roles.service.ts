import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../common/auth/auth-context.js';
import { Page } from '../../common/http/page.js';
import { containsCondition } from '../../common/persistence/contains.js';
import { pageRequest, type Condition } from '../../common/persistence/keyset.js';
import type { NamedListQueryDto } from '../../common/resources/list-query.dto.js';
import { Database } from '../../common/persistence/database.js';
import { Tables } from '../../common/persistence/tables.js';
import { Permission } from '../auth/entities/permission.entity.js';
import { Role } from '../auth/entities/role.entity.js';
import type { PermissionResponse, RoleResponse } from './dto/role.response.js';

const SORTS = { name: 'string', created_at: 'date' } as const;

/** Roles and permissions are seeded (src/database/seeds) and read here; they belong to no tenant. */
@Injectable()
export class RolesService {
  constructor(
    private readonly tables: Tables,
    private readonly db: Database,
  ) {}

  async listRoles(auth: AuthContext, query: NamedListQueryDto): Promise<Page<RoleResponse>> {
    const { rows, meta } = await this.tables
      .readAcrossTenants(Role)
      .page(pageRequest(query, SORTS), this.nameContains('roles', query.q), Boolean(query.q));
    // One query for the permissions of the whole page.
    const grants = rows.length
      ? await this.db.query<{ role_id: number | string; name: string }>(
          `SELECT rp.role_id, p.name FROM role_has_permissions rp JOIN permissions p ON p.id = rp.permission_id
            WHERE rp.role_id IN (${rows.map(() => '?').join(', ')})`,
          rows.map((r) => r.id),
        )
      : [];
    return new Page(
      rows.map((role) => ({
        id: role.id,
        name: role.name,
        guard_name: role.guard_name,
        permissions: grants
          .filter((g) => Number(g.role_id) === role.id)
          .map((g) => g.name)
          .sort(),
      })),
      meta,
    );
  }

  async listPermissions(auth: AuthContext, query: NamedListQueryDto): Promise<Page<PermissionResponse>> {
    const { rows, meta } = await this.tables
      .readAcrossTenants(Permission)
      .page(pageRequest(query, SORTS), this.nameContains('permissions', query.q), Boolean(query.q));
    return new Page(
      rows.map((p) => ({ id: p.id, name: p.name, guard_name: p.guard_name })),
      meta,
    );
  }

  private nameContains(table: string, q: string | undefined): Condition[] {
    return q ? [containsCondition([`\`${table}\`.\`name\``], q, this.db.dialect)] : [];
  }
}
