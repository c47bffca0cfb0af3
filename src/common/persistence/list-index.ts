/** The foundation migration named the (tenant_id, id) indexes of these tables before the convention. */
const FOUNDATION_ID_INDEXES: Record<string, string> = {
  users: 'users_tenant_id_id_index',
  activity_log: 'activity_log_tenant_id_id_index',
};

/**
 * The index that serves a list of `table` ordered by `field` (then id): the migrations create
 * `(tenant_id[, parent], field, id)` under this name for every sort a list offers, and list
 * queries name it on MySQL/MariaDB.
 */
export const listIndexName = (table: string, field: string) =>
  (field === 'id' && FOUNDATION_ID_INDEXES[table]) || `${table}_list_${field}_index`;
