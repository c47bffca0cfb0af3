import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { schemaColumns } from '../schema-columns.js';
import { foreignKey, listIndexes } from '../schema-keys.js';

/**
 * Customer CSV import jobs (issue 12) and the errors of their rows. A job is claimed by an
 * instance with a lease (`lease_owner`, `lease_expires_at` in epoch milliseconds), not a row lock.
 */
export class CreateCustomerImportTables1764500000000 implements MigrationInterface {
  name = 'CreateCustomerImportTables1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = schemaColumns(queryRunner);
    const create = (table: Table) => queryRunner.createTable(table, false, true, true);
    const count = (name: string) => ({ ...c.bigint(name), default: '0' });

    await create(
      new Table({
        name: 'customer_imports',
        columns: [
          c.id(),
          c.bigint('tenant_id'),
          c.char('batch_uuid', 36),
          c.string('status', 16),
          c.string('file_name', 255, true),
          c.string('file_path', 255),
          count('file_bytes'),
          c.bigint('total_rows', true),
          count('processed_rows'),
          count('created'),
          count('updated'),
          count('unchanged'),
          count('failed'),
          c.text('error', true),
          c.bigint('created_by', true),
          c.string('lease_owner', 64, true),
          c.bigint('lease_expires_at', true),
          c.timestamp('started_at'),
          c.timestamp('finished_at'),
          ...c.timestamps(),
        ],
        uniques: [{ name: 'customer_imports_batch_uuid_unique', columnNames: ['batch_uuid'] }],
        indices: [
          ...listIndexes('customer_imports', ['tenant_id'], ['created_at']),
          { name: 'customer_imports_queue_index', columnNames: ['status', 'id'] },
        ],
        foreignKeys: [foreignKey('customer_imports', 'tenant_id', 'tenants', 'RESTRICT')],
      }),
    );

    await create(
      new Table({
        name: 'customer_import_errors',
        columns: [
          c.id(),
          c.bigint('tenant_id'),
          c.bigint('import_id'),
          c.bigint('line'),
          c.string('field', 255),
          c.text('message'),
          ...c.timestamps(),
        ],
        indices: listIndexes('customer_import_errors', ['tenant_id', 'import_id'], []),
        foreignKeys: [
          foreignKey('customer_import_errors', 'tenant_id', 'tenants', 'RESTRICT'),
          foreignKey('customer_import_errors', 'import_id', 'customer_imports', 'CASCADE'),
        ],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('customer_import_errors', true);
    await queryRunner.dropTable('customer_imports', true);
  }
}
