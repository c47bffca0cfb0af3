import { Table, TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { schemaColumns } from '../schema-columns.js';

/**
 * Merge, erasure and suppression of customers (docs/customer-lifecycle.md): which customer was
 * merged into which (a source once at most), the erasure jobs, and the suppression list of keyed
 * hashes (one entry per tenant, kind and value).
 */
export class CreateCustomerLifecycleTables1765000000000 implements MigrationInterface {
  name = 'CreateCustomerLifecycleTables1765000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = schemaColumns(queryRunner);
    // How many values the tenant ever listed: read with every token, so that a tenant that never
    // erased anyone skips the list's read on every customer write.
    await queryRunner.addColumn(
      'tenants',
      new TableColumn({
        name: 'suppressions_listed',
        type: c.mysql ? 'int' : 'integer',
        unsigned: c.mysql,
        default: '0',
      }),
    );
    const count = (name: string) => ({ ...c.bigint(name), default: '0' });
    await queryRunner.createTable(
      new Table({
        name: 'customer_merges',
        columns: [c.id(), c.bigint('tenant_id'), c.bigint('survivor_id'), c.bigint('source_id'), ...c.timestamps()],
        uniques: [{ name: 'customer_merges_source_unique', columnNames: ['tenant_id', 'source_id'] }],
        indices: [{ name: 'customer_merges_survivor_index', columnNames: ['tenant_id', 'survivor_id'] }],
      }),
      false,
      true,
      true,
    );
    await queryRunner.createTable(
      new Table({
        name: 'customer_suppressions',
        columns: [
          c.id(),
          c.bigint('tenant_id'),
          c.string('kind', 16),
          c.char('value_hash', 64),
          c.bigint('created_by', true),
          ...c.timestamps(),
        ],
        uniques: [{ name: 'customer_suppressions_value_unique', columnNames: ['tenant_id', 'kind', 'value_hash'] }],
        indices: [{ name: 'customer_suppressions_list_id_index', columnNames: ['tenant_id', 'id'] }],
      }),
      false,
      true,
      true,
    );
    await queryRunner.createTable(
      new Table({
        name: 'customer_erasures',
        columns: [
          c.id(),
          c.bigint('tenant_id'),
          c.bigint('customer_id'),
          c.text('subject_ids'),
          c.string('status', 16),
          c.string('batch_uuid', 36),
          c.bigint('requested_by', true),
          count('activity_entries'),
          count('events'),
          count('webhook_attempts'),
          count('kept_answers'),
          count('late_arrivals'),
          c.string('lease_owner', 64, true),
          c.bigint('lease_expires_at', true),
          c.timestamp('completed_at'),
          ...c.timestamps(),
        ],
        indices: [
          { name: 'customer_erasures_status_index', columnNames: ['status', 'lease_expires_at'] },
          { name: 'customer_erasures_list_id_index', columnNames: ['tenant_id', 'id'] },
        ],
      }),
      false,
      true,
      true,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['customer_erasures', 'customer_suppressions', 'customer_merges'])
      await queryRunner.dropTable(table, true);
    await queryRunner.dropColumn('tenants', 'suppressions_listed');
  }
}
