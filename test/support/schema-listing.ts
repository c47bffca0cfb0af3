/**
 * The schema listing of INTERFACE.md ("Tables the tables endpoint lists"), transcribed:
 * column, db_type, nullable, default (as /api/tables reports it on MySQL/MariaDB), auto-number.
 */
export interface ListedColumn {
  name: string;
  db_type: string;
  nullable: boolean;
  default: string | null;
  auto: boolean;
}

const col = (
  name: string,
  db_type: string,
  opts: { n?: boolean; def?: string; auto?: boolean } = {},
): ListedColumn => ({
  name,
  db_type,
  nullable: !!opts.n,
  default: opts.def ?? (opts.n ? 'NULL' : null),
  auto: !!opts.auto,
});
const id = () => col('id', 'bigint unsigned', { auto: true });
const ts = (name: string) => col(name, 'timestamp', { n: true });
const str = (name: string, n = false) => col(name, 'varchar(255)', { n });

export const SCHEMA_LISTING: Record<string, ListedColumn[]> = {
  activity_log: [
    id(),
    str('log_name', true),
    col('description', 'text'),
    str('subject_type', true),
    str('event', true),
    col('subject_id', 'bigint unsigned', { n: true }),
    str('causer_type', true),
    col('causer_id', 'bigint unsigned', { n: true }),
    col('properties', 'longtext', { n: true }),
    col('batch_uuid', 'char(36)', { n: true }),
    ts('created_at'),
    ts('updated_at'),
  ],
  column_metadata: [
    id(),
    str('table_name'),
    str('column_name'),
    str('display_name', true),
    str('app_type', true),
    col('info', 'text', { n: true }),
    ts('created_at'),
    ts('updated_at'),
  ],
  failed_jobs: [
    id(),
    str('uuid'),
    col('connection', 'text'),
    col('queue', 'text'),
    col('payload', 'longtext'),
    col('exception', 'longtext'),
    col('failed_at', 'timestamp', { def: 'current_timestamp()' }),
  ],
  model_has_permissions: [
    col('permission_id', 'bigint unsigned'),
    str('model_type'),
    col('model_id', 'bigint unsigned'),
  ],
  model_has_roles: [col('role_id', 'bigint unsigned'), str('model_type'), col('model_id', 'bigint unsigned')],
  password_reset_tokens: [str('email'), str('token'), ts('created_at')],
  permissions: [id(), str('name'), str('guard_name'), ts('created_at'), ts('updated_at')],
  personal_access_tokens: [
    id(),
    str('tokenable_type'),
    col('tokenable_id', 'bigint unsigned'),
    str('name'),
    col('token', 'varchar(64)'),
    col('abilities', 'text', { n: true }),
    ts('last_used_at'),
    ts('expires_at'),
    ts('created_at'),
    ts('updated_at'),
  ],
  role_has_permissions: [col('permission_id', 'bigint unsigned'), col('role_id', 'bigint unsigned')],
  roles: [id(), str('name'), str('guard_name'), ts('created_at'), ts('updated_at')],
  table_metadata: [
    id(),
    str('table_name'),
    str('display_name', true),
    str('app_type', true),
    col('info', 'text', { n: true }),
    ts('created_at'),
    ts('updated_at'),
  ],
  tenants: [id(), ts('created_at'), ts('updated_at')],
  users: [
    id(),
    str('name'),
    str('email'),
    ts('email_verified_at'),
    str('password'),
    col('remember_token', 'varchar(100)', { n: true }),
    col('is_active', 'tinyint(1)', { def: '1' }),
    ts('created_at'),
    ts('updated_at'),
  ],
};
