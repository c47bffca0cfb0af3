/**
 * What `/api/db/schema` tells about each table: a display name and a description, plus
 * column overrides where the derived label (from the column name and type) is not enough.
 * Each feature adds its tables here as it adds their migration.
 */
export interface ColumnDescription {
  display_name?: string;
  app_type?: string;
  info?: string;
}

export interface TableDescription {
  display_name: string;
  app_type?: string;
  info: string;
  columns?: Record<string, ColumnDescription>;
}

export const TABLE_DESCRIPTIONS: Record<string, TableDescription> = {
  activity_log: {
    display_name: 'Activity Log',
    info: 'Audit trail: one entry per create, update or delete, with the acting user and the changed attributes.',
    columns: {
      subject_type: { info: 'Kind of record the entry is about.' },
      causer_id: { display_name: 'Causer', info: 'User who made the change.' },
      properties: { app_type: 'json', info: 'Changed attributes and their previous values.' },
      batch_uuid: { app_type: 'uuid' },
    },
  },
  column_metadata: {
    display_name: 'Column Metadata',
    info: 'Display names, application types and descriptions of table columns.',
  },
  failed_jobs: { display_name: 'Failed Jobs', info: 'Background jobs that failed, kept for inspection.' },
  migrations: { display_name: 'Migrations', info: 'Schema migrations already applied (owned by the migration tool).' },
  model_has_permissions: {
    display_name: 'User Permissions',
    info: 'Permissions granted directly to a user, beside those of the roles.',
  },
  model_has_roles: { display_name: 'User Roles', info: 'Roles assigned to users.' },
  password_reset_tokens: {
    display_name: 'Password Reset Tokens',
    info: 'Hashed single-use password reset tokens, valid for 60 minutes.',
    columns: {
      email: { app_type: 'email' },
      token: { app_type: 'secret', info: 'Hash of the token; the token itself is only mailed.' },
    },
  },
  permissions: { display_name: 'Permissions', info: 'Named abilities such as marketing.view or users.manage.' },
  personal_access_tokens: {
    display_name: 'Access Tokens',
    info: 'One row per login (device); the JWT names the row, which stores only a hash of the token.',
    columns: {
      name: { display_name: 'Device Name' },
      token: { app_type: 'secret', info: 'SHA-256 hash of the token id.' },
    },
  },
  role_has_permissions: { display_name: 'Role Permissions', info: 'Permissions granted by each role.' },
  roles: { display_name: 'Roles', info: 'Named sets of permissions: super-admin, admin, manager, viewer.' },
  table_metadata: {
    display_name: 'Table Metadata',
    info: 'Display names, application types and descriptions of tables.',
  },
  tenants: {
    display_name: 'Tenants',
    info: 'Organisations using the service; every user and every domain record belongs to one.',
  },
  users: {
    display_name: 'Users',
    info: 'People who sign in to the service, each in one tenant.',
    columns: {
      email: { display_name: 'E-mail', app_type: 'email' },
      password: { app_type: 'password', info: 'Password hash (bcrypt); never returned.' },
      remember_token: { app_type: 'secret' },
    },
  },
};
