import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { In, type DataSource } from 'typeorm';
import type { Page } from '../../common/http/page.js';
import { paginate } from '../../common/resources/keyset-paginator.js';
import { whereContains } from '../../common/resources/search.js';
import type { NamedListQueryDto } from '../../common/resources/list-query.dto.js';
import type { PermissionResponse, RoleResponse } from './dto/role.response.js';
import { Permission } from './entities/permission.entity.js';
import { Role } from './entities/role.entity.js';

@Injectable()
export class RolesService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  listRoles(query: NamedListQueryDto): Promise<Page<RoleResponse>> {
    const qb = this.dataSource.getRepository(Role).createQueryBuilder('roles');
    if (query.q) whereContains(qb, ['name'], query.q);
    return paginate(qb, query, { name: 'string', created_at: 'date' }, async (roles) => {
      // One query for the permissions of the whole page.
      const withPermissions = roles.length
        ? await this.dataSource.getRepository(Role).find({
            where: { id: In(roles.map((r) => r.id)) },
            relations: { permissions: true },
          })
        : [];
      const byId = new Map(withPermissions.map((r) => [Number(r.id), r.permissions.map((p) => p.name).sort()]));
      return roles.map((role) => ({
        id: Number(role.id),
        name: role.name,
        guard_name: role.guard_name,
        permissions: byId.get(Number(role.id)) ?? [],
      }));
    });
  }

  listPermissions(query: NamedListQueryDto): Promise<Page<PermissionResponse>> {
    const qb = this.dataSource.getRepository(Permission).createQueryBuilder('permissions');
    if (query.q) whereContains(qb, ['name'], query.q);
    return paginate(qb, query, { name: 'string', created_at: 'date' }, (rows) =>
      rows.map((p) => ({ id: Number(p.id), name: p.name, guard_name: p.guard_name })),
    );
  }
}
