/** Every permission of API-CONVENTIONS §8, and which role holds which. */
const DOMAINS = ['marketing', 'audiences', 'customers', 'destinations', 'validation-rules'] as const;
const viewManage = (area: string) => [`${area}.view`, `${area}.manage`];

export const DOMAIN_VIEW_PERMISSIONS = DOMAINS.map((d) => `${d}.view`);
export const DOMAIN_PERMISSIONS = DOMAINS.flatMap(viewManage);

export const ALL_PERMISSIONS = [
  ...DOMAIN_PERMISSIONS,
  ...viewManage('users'),
  ...viewManage('tenants'),
  'roles.view',
  'activity-log.view',
  'events.view',
  ...viewManage('webhooks'),
  'mail.send',
  'campaigns.launch',
] as const;

export type PermissionName = (typeof ALL_PERMISSIONS)[number];

export const GUARD_NAME = 'api';

export const ROLE_PERMISSIONS: Record<string, readonly string[]> = {
  'super-admin': ALL_PERMISSIONS,
  admin: ALL_PERMISSIONS.filter((p) => !p.startsWith('tenants.')),
  manager: [...DOMAIN_PERMISSIONS, 'mail.send', 'campaigns.launch'],
  viewer: DOMAIN_VIEW_PERMISSIONS,
};
