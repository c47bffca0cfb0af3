import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { IdempotencyClaim } from '../idempotency/idempotency.js';
import type { TenantState } from '../usage/tenant-limits.js';
import type { AuthUser } from './auth-user.js';

/**
 * Who acts, in which tenant, in which request: what every tenant-owned read and write needs.
 * The tenant guard builds it once per request; services receive it as an argument (no request
 * scoped storage: on Node 20 an AsyncLocalStorage taxes every promise of every request).
 */
export interface AuthContext {
  readonly user: AuthUser;
  /** The tenant the request acts in: the caller's, or the one a super-admin chose with X-Tenant-ID. */
  readonly tenantId: number;
  /** True when a super-admin named the tenant with X-Tenant-ID. */
  readonly tenantChosen: boolean;
  /** The request id: on the answer, on every log line, and the `batch_uuid` of the activity it writes. */
  readonly requestId: string;
  /** The tenant the request acts in, as read with the token (absent for the service's own writes: read where needed). */
  readonly tenant?: TenantState;
  /** A background job acting for the user who started it (an import's rows): the change feed names no causer. */
  readonly job?: boolean;
  /** The If-Match header of a PUT or DELETE: checked against the record inside the write's transaction. */
  readonly ifMatch?: string;
  /** The claim of the request's Idempotency-Key; a service stores its answer with it in the write's transaction. */
  idempotency?: IdempotencyClaim;
}

/**
 * A change the service makes itself in a tenant (a webhook disabled by its worker): no user caused
 * it, so the activity log and the change feed name no causer.
 */
export function systemAuth(tenantId: number, requestId: string): AuthContext {
  return {
    user: { id: 0, tenant_id: tenantId, name: '', email: '', roles: [], permissions: new Set(), tokenId: 0 },
    tenantId,
    tenantChosen: false,
    requestId,
    job: true,
  };
}

export class MissingTenantContext extends Error {
  constructor() {
    super('No tenant context: tenant-owned data cannot be read or written here.');
  }
}

/** `@Auth() auth: AuthContext`: the caller and tenant of an authenticated route. */
export const Auth = createParamDecorator((_data: unknown, context: ExecutionContext): AuthContext => {
  const auth = context.switchToHttp().getRequest<{ auth?: AuthContext }>().auth;
  if (!auth) throw new MissingTenantContext();
  return auth;
});
