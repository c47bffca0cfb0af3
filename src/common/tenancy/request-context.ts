import { Injectable } from '@nestjs/common';
import { ClsService } from 'nestjs-cls';
import type { AuthUser } from '../auth/auth-user.js';

interface ContextStore {
  [key: symbol]: unknown;
  tenantId?: number;
  tenantChosen?: boolean;
  user?: AuthUser;
  batchId?: string;
}

export class MissingTenantContext extends Error {
  constructor() {
    super('No tenant in the request context: tenant-owned data cannot be read or written here.');
  }
}

/**
 * The caller and the tenant a request acts in, kept in request-scoped storage (nestjs-cls).
 * Reading the tenant where none is set throws rather than leaks across tenants.
 */
@Injectable()
export class RequestContext {
  constructor(private readonly cls: ClsService<ContextStore>) {}

  tenantId(): number {
    const tenantId = this.cls.isActive() ? this.cls.get('tenantId') : undefined;
    if (tenantId === undefined) throw new MissingTenantContext();
    return tenantId;
  }

  user(): AuthUser | undefined {
    return this.cls.isActive() ? this.cls.get('user') : undefined;
  }

  /** Groups the activity-log entries written by one request. */
  batchId(): string | undefined {
    return this.cls.isActive() ? this.cls.getId() : undefined;
  }

  /** True when a super-admin named the tenant with X-Tenant-ID. */
  tenantChosen(): boolean {
    return this.cls.isActive() && this.cls.get('tenantChosen') === true;
  }

  enter(user: AuthUser, tenantId: number, chosen: boolean): void {
    this.cls.set('user', user);
    this.cls.set('tenantId', tenantId);
    this.cls.set('tenantChosen', chosen);
  }
}
