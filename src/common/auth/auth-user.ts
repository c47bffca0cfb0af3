import type { TenantState } from '../usage/tenant-limits.js';

/** The authenticated caller, as the auth guard puts it on the request. */
export interface AuthUser {
  id: number;
  tenant_id: number;
  name: string;
  email: string;
  roles: string[];
  permissions: Set<string>;
  /** The personal_access_tokens row of the token used for this request. */
  tokenId: number;
  /** The user's tenant as the request knows it, read with the token (absent for the service's own writes). */
  tenant?: TenantState;
}

export const SUPER_ADMIN = 'super-admin';

export const isSuperAdmin = (user: AuthUser) => user.roles.includes(SUPER_ADMIN);

/** `model_type` of users in the polymorphic role, permission, token and activity tables. */
export const USER_MODEL_TYPE = 'user';
