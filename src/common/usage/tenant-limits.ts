import type { Sql } from '../persistence/database.js';

/** The records a plan caps, by the name the usage answer and the tenant's `limits` give them. */
export const COUNTED_RESOURCES = ['customers', 'audiences', 'campaigns', 'webhooks'] as const;
export type CountedResource = (typeof COUNTED_RESOURCES)[number];

export const LIMIT_NAMES = ['api_calls_per_day', ...COUNTED_RESOURCES, 'tracked_events_per_day'] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];

/** A tenant's plan: each limit a positive integer, or null for unlimited. */
export type TenantLimits = Record<LimitName, number | null>;

export const UNLIMITED: TenantLimits = {
  api_calls_per_day: null,
  customers: null,
  audiences: null,
  campaigns: null,
  webhooks: null,
  tracked_events_per_day: null,
};

/** The tenants table's column of a limit. */
export const limitColumn = (name: LimitName) => `limit_${name}`;

/** `n.limit_api_calls_per_day AS limit_api_calls_per_day, ...` for a SELECT of tenants aliased `alias`. */
export const limitSelectList = (alias: string) =>
  LIMIT_NAMES.map((name) => `${alias}.${limitColumn(name)} AS ${limitColumn(name)}`).join(', ');

/**
 * The limits of a row read with limitSelectList (on every authenticated request: one object literal,
 * not a loop of computed-name stores, which made each access a megamorphic one).
 */
export function limitsOf(row: Record<string, unknown>): TenantLimits {
  return {
    api_calls_per_day: limitValue(row.limit_api_calls_per_day),
    customers: limitValue(row.limit_customers),
    audiences: limitValue(row.limit_audiences),
    campaigns: limitValue(row.limit_campaigns),
    webhooks: limitValue(row.limit_webhooks),
    tracked_events_per_day: limitValue(row.limit_tracked_events_per_day),
  } satisfies Record<LimitName, number | null>;
}

const limitValue = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

/** The limits of a tenant as `sql` sees them; undefined when there is no such tenant. */
export async function readTenantLimits(sql: Pick<Sql, 'query'>, tenantId: number): Promise<TenantLimits | undefined> {
  const [row] = await sql.query<Record<string, unknown>>(
    `SELECT ${limitSelectList('n')} FROM tenants n WHERE n.id = ?`,
    [tenantId],
  );
  return row && limitsOf(row);
}

/**
 * What a request knows of its tenant, read with its token (or, for a super-admin's X-Tenant-ID,
 * with the tenant): its plan, and how many values it ever put on its suppression list.
 */
export interface TenantState {
  limits: TenantLimits;
  suppressionsListed: number;
}

/** The columns of TenantState, for a SELECT of tenants aliased `alias`. */
export const tenantStateSelectList = (alias: string) =>
  `${limitSelectList(alias)}, ${alias}.suppressions_listed AS suppressions_listed`;

export const tenantStateOf = (row: Record<string, unknown>): TenantState => ({
  limits: limitsOf(row),
  suppressionsListed: Number(row.suppressions_listed ?? 0),
});

/** A tenant's state as `sql` sees it; undefined when there is no such tenant. */
export async function readTenantState(sql: Pick<Sql, 'query'>, tenantId: number): Promise<TenantState | undefined> {
  const [row] = await sql.query<Record<string, unknown>>(
    `SELECT ${tenantStateSelectList('n')} FROM tenants n WHERE n.id = ?`,
    [tenantId],
  );
  return row && tenantStateOf(row);
}
