import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { AuthContext } from '../auth/auth-context.js';
import { isSuperAdmin, type AuthUser } from '../auth/auth-user.js';
import { Database } from '../persistence/database.js';
import { RecordNotFound } from '../http/api-exception.js';
import { readTenantState, type TenantState } from '../usage/tenant-limits.js';

export const TENANT_HEADER = 'x-tenant-id';

const ifMatchOf = (request: FastifyRequest): string | undefined => {
  const header = request.headers['if-match'];
  return Array.isArray(header) ? header.join(', ') : header;
};

/**
 * Puts the caller's AuthContext on the request: their tenant, or the one a super-admin names
 * with X-Tenant-ID (for everyone else the header is ignored), with the If-Match of a route that
 * declares conditional writes. Runs after authentication and the rate limit, before the daily quota
 * (which counts the call in this tenant), access, body errors and the Idempotency-Key claim
 * (CommonModule registers the guards in that order). A header naming no tenant is a 404 here, so that
 * call counts in no tenant's quota.
 */
@Injectable()
export class TenantGuard implements CanActivate {
  constructor(private readonly db: Database) {}

  /** Synchronous unless a super-admin names another tenant, whose row is then read. */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const user = request.user;
    if (!user) return true;
    const header = request.headers[TENANT_HEADER];
    if (isSuperAdmin(user) && header !== undefined && header !== '') {
      return this.chosenTenant(user, header).then((tenant) => attach(request, user, tenant, true));
    }
    return attach(request, user, { id: user.tenant_id, state: user.tenant }, false);
  }

  private async chosenTenant(
    user: AuthUser,
    header: string | string[] | undefined,
  ): Promise<{ id: number; state?: TenantState }> {
    const value = Array.isArray(header) ? header[0] : (header ?? '');
    const tenantId = /^\d{1,15}$/.test(value) ? Number(value) : NaN;
    if (!(tenantId > 0)) throw new RecordNotFound('tenant');
    if (tenantId === user.tenant_id) return { id: tenantId, state: user.tenant };
    const state = await readTenantState(this.db, tenantId);
    if (!state) throw new RecordNotFound('tenant');
    return { id: tenantId, state };
  }
}

function attach(
  request: FastifyRequest,
  user: AuthUser,
  tenant: { id: number; state?: TenantState },
  chosen: boolean,
): true {
  const auth: AuthContext = {
    user,
    tenantId: tenant.id,
    tenantChosen: chosen,
    requestId: request.id,
    tenant: tenant.state,
    ifMatch: request.routeOptions.config.conditional && request.method !== 'GET' ? ifMatchOf(request) : undefined,
  };
  request.auth = auth;
  return true;
}
