import { assertIfMatch } from '../../common/http/conditional.js';
import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../common/auth/auth-context.js';
import { sortKeyOf } from '../../common/persistence/sort-key.js';
import { DeleteConflict, RecordNotFound, ValidationFailed } from '../../common/http/api-exception.js';
import { Page } from '../../common/http/page.js';
import { containsCondition } from '../../common/persistence/contains.js';
import type { GlobalTable } from '../../common/persistence/global-table.js';
import { pageRequest, type Condition } from '../../common/persistence/keyset.js';
import { Tables, type ReadableTable, type TenantTx } from '../../common/persistence/tables.js';
import { User } from '../auth/entities/user.entity.js';
import { AccessTokenService } from '../auth/access-token.service.js';
import { Tenant } from '../auth/entities/tenant.entity.js';
import {
  limitColumns,
  toTenantResponse,
  type TenantDto,
  type TenantListQueryDto,
  type TenantResponse,
} from './dto/tenant.dto.js';

const SORTS = { name: 'string', created_at: 'date' } as const;

/** Tenants are the one resource above tenancy: only super-admins (tenants.*) reach this service. */
@Injectable()
export class TenantsService {
  constructor(
    private readonly tables: Tables,
    private readonly tokens: AccessTokenService,
  ) {
    tables.publish(Tenant, { resource: 'tenant', present: async (_reads, tenants) => tenants.map(toTenantResponse) });
  }

  async list(auth: AuthContext, query: TenantListQueryDto): Promise<Page<TenantResponse>> {
    const conditions: Condition[] = [];
    if (query.q) conditions.push(containsCondition(['`tenants`.`name`'], query.q, this.tables.dialect));
    if (query.is_active !== undefined) conditions.push({ sql: '`tenants`.`is_active` = ?', params: [query.is_active] });
    const { rows, meta } = await this.tables
      .readAcrossTenants(Tenant)
      .page(pageRequest(query, SORTS), conditions, conditions.length > 0);
    return new Page(rows.map(toTenantResponse), meta);
  }

  async get(auth: AuthContext, id: number): Promise<TenantResponse> {
    return toTenantResponse(await this.find(this.tables.readAcrossTenants(Tenant), id));
  }

  async create(auth: AuthContext, dto: TenantDto): Promise<TenantResponse> {
    const tenant = await this.tables.write(auth, async (tx) => {
      const tenants = this.tenants(tx);
      await this.assertNameFree(tenants, dto.name);
      return tenants.insert({
        name: dto.name,
        description: dto.description ?? null,
        is_active: dto.is_active ?? true,
        ...limitColumns(dto.limits),
      });
    });
    return toTenantResponse(tenant);
  }

  async update(auth: AuthContext, id: number, dto: TenantDto): Promise<TenantResponse> {
    const tenant = await this.tables.writeWithBookkeeping(auth, async (tx, bookkeeping) => {
      const tenants = this.tenants(tx);
      const tenant = await this.find(tenants, id, true); // locked: the answer and its event show the tenant as stored
      assertIfMatch(auth.ifMatch, toTenantResponse(tenant));
      if (sortKeyOf(dto.name) !== tenant.name_key) await this.assertNameFree(tenants, dto.name, tenant.id);
      const deactivating = dto.is_active === false && tenant.is_active;
      if (deactivating && tenant.id === auth.user.tenant_id) {
        throw new DeleteConflict('You cannot deactivate your own tenant.');
      }
      const updated = await tenants.update(tenant, {
        name: dto.name,
        ...(dto.description !== undefined ? { description: dto.description } : {}),
        ...(dto.is_active !== undefined ? { is_active: dto.is_active } : {}),
        ...limitColumns(dto.limits),
      });
      if (!updated) throw new RecordNotFound('tenant');
      if (deactivating) {
        const users = await tx.acrossTenants(User).findWhere({ tenant_id: tenant.id });
        await this.tokens.revokeAllOfUsers(
          bookkeeping,
          users.map((user) => user.id),
        );
      }
      return updated;
    });
    return toTenantResponse(tenant);
  }

  async delete(auth: AuthContext, id: number): Promise<null> {
    return this.tables.write(auth, async (tx) => {
      const tenants = this.tenants(tx);
      const tenant = await this.find(tenants, id, true);
      assertIfMatch(auth.ifMatch, toTenantResponse(tenant));
      const users = await tx.acrossTenants(User).count({ tenant_id: tenant.id });
      if (users > 0) {
        throw new DeleteConflict(
          `The tenant cannot be deleted: ${users} user${users === 1 ? '' : 's'} belong${users === 1 ? 's' : ''} to it.`,
        );
      }
      if (!(await tenants.remove(tenant))) throw new RecordNotFound('tenant');
      return null;
    });
  }

  /** Every tenant; a tenant's own changes are recorded in that tenant. */
  private tenants(tx: TenantTx): GlobalTable<Tenant> {
    return tx.acrossTenants(Tenant, (tenant) => tenant.id);
  }

  private async find(tenants: ReadableTable<Tenant>, id: number, lock = false): Promise<Tenant> {
    const tenant = await tenants.findById(id, { lock });
    if (!tenant) throw new RecordNotFound('tenant');
    return tenant;
  }

  private async assertNameFree(tenants: GlobalTable<Tenant>, name: string, exceptId?: number): Promise<void> {
    // Regardless of case: by the name's sort key, which the unique index also holds (sort-key.ts).
    if (await tenants.exists({ name_key: sortKeyOf(name) }, exceptId))
      throw ValidationFailed.field('name', 'The name has already been taken.');
  }
}
