import { Table, type MigrationInterface, type QueryRunner, type TableColumnOptions } from 'typeorm';
import { schemaColumns } from '../schema-columns.js';

const pk = (column: TableColumnOptions): TableColumnOptions => ({ ...column, isPrimary: true });

/** The 13 tables of the contract's schema listing (columns in the listed order, extras after). */
export class CreateFoundationTables1763800000000 implements MigrationInterface {
  name = 'CreateFoundationTables1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = schemaColumns(queryRunner);
    const create = (table: Table) => queryRunner.createTable(table, false, false, false);

    await create(
      new Table({
        name: 'tenants',
        columns: [
          c.id(),
          ...c.timestamps(),
          c.string('name'),
          c.string('description', 255, true),
          c.boolean('is_active', true),
        ],
        uniques: [{ name: 'tenants_name_unique', columnNames: ['name'] }],
      }),
    );

    await create(
      new Table({
        name: 'users',
        columns: [
          c.id(),
          c.string('name'),
          c.string('email'),
          c.timestamp('email_verified_at'),
          c.string('password'),
          c.string('remember_token', 100, true),
          c.boolean('is_active', true),
          ...c.timestamps(),
          c.bigint('tenant_id'),
        ],
        uniques: [{ name: 'users_email_unique', columnNames: ['email'] }],
        indices: [{ name: 'users_tenant_id_id_index', columnNames: ['tenant_id', 'id'] }],
        foreignKeys: [
          {
            name: 'users_tenant_id_foreign',
            columnNames: ['tenant_id'],
            referencedTableName: 'tenants',
            referencedColumnNames: ['id'],
            onDelete: 'RESTRICT',
          },
        ],
      }),
    );

    for (const name of ['roles', 'permissions']) {
      await create(
        new Table({
          name,
          columns: [c.id(), c.string('name'), c.string('guard_name'), ...c.timestamps()],
          uniques: [{ name: `${name}_name_guard_name_unique`, columnNames: ['name', 'guard_name'] }],
        }),
      );
    }

    await create(
      new Table({
        name: 'model_has_permissions',
        columns: [pk(c.bigint('permission_id')), pk(c.string('model_type')), pk(c.bigint('model_id'))],
        indices: [{ name: 'model_has_permissions_model_id_model_type_index', columnNames: ['model_id', 'model_type'] }],
        foreignKeys: [
          {
            name: 'model_has_permissions_permission_id_foreign',
            columnNames: ['permission_id'],
            referencedTableName: 'permissions',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
      }),
    );

    await create(
      new Table({
        name: 'model_has_roles',
        columns: [pk(c.bigint('role_id')), pk(c.string('model_type')), pk(c.bigint('model_id'))],
        indices: [{ name: 'model_has_roles_model_id_model_type_index', columnNames: ['model_id', 'model_type'] }],
        foreignKeys: [
          {
            name: 'model_has_roles_role_id_foreign',
            columnNames: ['role_id'],
            referencedTableName: 'roles',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
      }),
    );

    await create(
      new Table({
        name: 'role_has_permissions',
        columns: [pk(c.bigint('permission_id')), pk(c.bigint('role_id'))],
        indices: [{ name: 'role_has_permissions_role_id_index', columnNames: ['role_id'] }],
        foreignKeys: [
          {
            name: 'role_has_permissions_permission_id_foreign',
            columnNames: ['permission_id'],
            referencedTableName: 'permissions',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
          {
            name: 'role_has_permissions_role_id_foreign',
            columnNames: ['role_id'],
            referencedTableName: 'roles',
            referencedColumnNames: ['id'],
            onDelete: 'CASCADE',
          },
        ],
      }),
    );

    await create(
      new Table({
        name: 'personal_access_tokens',
        columns: [
          c.id(),
          c.string('tokenable_type'),
          c.bigint('tokenable_id'),
          c.string('name'),
          c.string('token', 64),
          c.text('abilities', true),
          c.timestamp('last_used_at'),
          c.timestamp('expires_at'),
          ...c.timestamps(),
        ],
        uniques: [{ name: 'personal_access_tokens_token_unique', columnNames: ['token'] }],
        indices: [
          {
            name: 'personal_access_tokens_tokenable_type_tokenable_id_index',
            columnNames: ['tokenable_type', 'tokenable_id'],
          },
        ],
      }),
    );

    await create(
      new Table({
        name: 'password_reset_tokens',
        columns: [pk(c.string('email')), c.string('token'), c.timestamp('created_at')],
      }),
    );

    await create(
      new Table({
        name: 'failed_jobs',
        columns: [
          c.id(),
          c.string('uuid'),
          c.text('connection'),
          c.text('queue'),
          c.longText('payload'),
          c.longText('exception'),
          c.timestampDefaultNow('failed_at'),
        ],
        uniques: [{ name: 'failed_jobs_uuid_unique', columnNames: ['uuid'] }],
      }),
    );

    await create(
      new Table({
        name: 'activity_log',
        columns: [
          c.id(),
          c.string('log_name', 255, true),
          c.text('description'),
          c.string('subject_type', 255, true),
          c.string('event', 255, true),
          c.bigint('subject_id', true),
          c.string('causer_type', 255, true),
          c.bigint('causer_id', true),
          c.longText('properties', true),
          c.char('batch_uuid', 36, true),
          ...c.timestamps(),
          c.bigint('tenant_id', true),
        ],
        indices: [
          { name: 'activity_log_log_name_index', columnNames: ['log_name'] },
          { name: 'activity_log_tenant_id_id_index', columnNames: ['tenant_id', 'id'] },
          { name: 'subject', columnNames: ['subject_type', 'subject_id'] },
          { name: 'causer', columnNames: ['causer_type', 'causer_id'] },
        ],
      }),
    );

    await create(
      new Table({
        name: 'table_metadata',
        columns: [
          c.id(),
          c.string('table_name'),
          c.string('display_name', 255, true),
          c.string('app_type', 255, true),
          c.text('info', true),
          ...c.timestamps(),
        ],
        uniques: [{ name: 'table_metadata_table_name_unique', columnNames: ['table_name'] }],
      }),
    );

    await create(
      new Table({
        name: 'column_metadata',
        columns: [
          c.id(),
          c.string('table_name'),
          c.string('column_name'),
          c.string('display_name', 255, true),
          c.string('app_type', 255, true),
          c.text('info', true),
          ...c.timestamps(),
        ],
        uniques: [
          { name: 'column_metadata_table_name_column_name_unique', columnNames: ['table_name', 'column_name'] },
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [
      'column_metadata',
      'table_metadata',
      'activity_log',
      'failed_jobs',
      'password_reset_tokens',
      'personal_access_tokens',
      'role_has_permissions',
      'model_has_roles',
      'model_has_permissions',
      'permissions',
      'roles',
      'users',
      'tenants',
    ]) {
      await queryRunner.dropTable(table, true);
    }
  }
}
