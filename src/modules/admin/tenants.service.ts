import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Not, type DataSource, type EntityManager } from 'typeorm';
import type { AuthUser } from '../../common/auth/auth-user.js';
import { DeleteConflict, RecordNotFound, ValidationFailed } from '../../common/http/api-exception.js';
import type { Page } from '../../common/http/page.js';
import { paginate } from '../../common/resources/keyset-paginator.js';
import { whereContains } from '../../common/resources/search.js';
import { AccessTokenService } from '../auth/access-token.service.js';
import { toTenantResponse, type TenantDto, type TenantListQueryDto, type TenantResponse } from './dto/tenant.dto.js';
import { Tenant } from './entities/tenant.entity.js';
import { User } from './entities/user.entity.js';

/** Tenants are the one resource above tenancy: only super-admins (tenants.*) reach this service. */
@Injectable()
export class TenantsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly tokens: AccessTokenService,
  ) {}

  list(query: TenantListQueryDto): Promise<Page<TenantResponse>> {
    const qb = this.dataSource.getRepository(Tenant).createQueryBuilder('tenants');
    if (query.q) whereContains(qb, ['name'], query.q);
    if (query.is_active !== undefined) qb.andWhere('tenants.is_active = :active', { active: query.is_active });
    return paginate(qb, query, { name: 'string', created_at: 'date' }, (rows) => rows.map(toTenantResponse));
  }

  async get(id: number): Promise<TenantResponse> {
    return toTenantResponse(await this.find(this.dataSource.manager, id));
  }

  async create(dto: TenantDto): Promise<TenantResponse> {
    const tenant = await this.dataSource.transaction(async (manager) => {
      await this.assertNameFree(manager, dto.name);
      return manager.save(
        manager.create(Tenant, {
          name: dto.name,
          description: dto.description ?? null,
          is_active: dto.is_active ?? true,
        }),
      );
    });
    return toTenantResponse(tenant);
  }

  async update(caller: AuthUser, id: number, dto: TenantDto): Promise<TenantResponse> {
    const tenant = await this.dataSource.transaction(async (manager) => {
      const tenant = await this.find(manager, id);
      if (dto.name !== tenant.name) await this.assertNameFree(manager, dto.name, tenant.id);
      const deactivating = dto.is_active === false && tenant.is_active;
      if (deactivating && tenant.id === caller.tenant_id) {
        throw new DeleteConflict('You cannot deactivate your own tenant.');
      }
      tenant.name = dto.name;
      if (dto.description !== undefined) tenant.description = dto.description;
      if (dto.is_active !== undefined) tenant.is_active = dto.is_active;
      const saved = await manager.save(tenant);
      if (deactivating) await this.tokens.revokeAllOfTenant(manager, tenant.id);
      return saved;
    });
    return toTenantResponse(tenant);
  }

  async delete(id: number): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const tenant = await this.find(manager, id);
      const users = await manager.count(User, { where: { tenant_id: tenant.id } });
      if (users > 0) {
        throw new DeleteConflict(
          `The tenant cannot be deleted: ${users} user${users === 1 ? '' : 's'} belong${users === 1 ? 's' : ''} to it.`,
        );
      }
      await manager.remove(tenant);
    });
  }

  private async find(manager: EntityManager, id: number): Promise<Tenant> {
    const tenant = await manager.findOneBy(Tenant, { id });
    if (!tenant) throw new RecordNotFound('tenant');
    return tenant;
  }

  private async assertNameFree(manager: EntityManager, name: string, exceptId?: number): Promise<void> {
    const taken = await manager.exists(Tenant, { where: exceptId ? { name, id: Not(exceptId) } : { name } });
    if (taken) throw ValidationFailed.field('name', 'The name has already been taken.');
  }
}
