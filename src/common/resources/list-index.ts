/**
 * The index that serves a list of `table` ordered by `field` (then id): the migrations create
 * `(tenant_id[, parent], field, id)` under this name for every sort a list offers, and list
 * queries name it on MySQL/MariaDB.
 */
export const listIndexName = (table: string, field: string) => `${table}_list_${field}_index`;
