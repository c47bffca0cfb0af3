import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import type { DataSource } from 'typeorm';
import { isSuperAdmin, type AuthUser } from '../auth/auth-user.js';
import { RecordNotFound } from '../http/api-exception.js';
import { RequestContext } from './request-context.js';

export const TENANT_HEADER = 'x-tenant-id';

/**
 * Puts the caller's tenant in the request context. A super-admin may act inside another tenant
 * by sending X-Tenant-ID; for everyone else the header is ignored.
 */
@Injectable()
export class TenantInterceptor implements NestInterceptor {
  constructor(
    private readonly context: RequestContext,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const request = context.switchToHttp().getRequest<Request & { user?: AuthUser; tenantId?: number }>();
    const user = request.user;
    if (user) {
      const header = request.headers[TENANT_HEADER];
      const tenantId = await this.tenantFor(user, header);
      this.context.enter(user, tenantId, isSuperAdmin(user) && header !== undefined && header !== '');
      request.tenantId = tenantId;
    }
    return next.handle();
  }

  private async tenantFor(user: AuthUser, header: string | string[] | undefined): Promise<number> {
    if (!isSuperAdmin(user) || header === undefined || header === '') return user.tenant_id;
    const value = Array.isArray(header) ? header[0] : header;
    const tenantId = /^\d{1,15}$/.test(value) ? Number(value) : NaN;
    if (!(tenantId > 0)) throw new RecordNotFound('tenant');
    if (tenantId === user.tenant_id) return tenantId;
    const exists = await this.dataSource.query('SELECT id FROM tenants WHERE id = ?', [tenantId]);
    if (exists.length === 0) throw new RecordNotFound('tenant');
    return tenantId;
  }
}
