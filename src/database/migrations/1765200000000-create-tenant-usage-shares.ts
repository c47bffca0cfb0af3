import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { schemaColumns } from '../schema-columns.js';

/**
 * A tenant's count of a resource under a limit is split over a few rows (docs/plans-and-usage.md):
 * each holds the creates and deletes written through it since the count last took them in (`delta`,
 * signed), and how far it may still move the count up (`headroom`) and down (`legroom`) without
 * looking at the others, granted under the limit `granted_under` on the UTC day `granted_on`.
 */
export class CreateTenantUsageShares1765200000000 implements MigrationInterface {
  name = 'CreateTenantUsageShares1765200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = schemaColumns(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'tenant_usage_shares',
        columns: [
          c.id(),
          c.bigint('tenant_id'),
          c.string('resource', 32),
          { name: 'share', type: 'int', unsigned: c.mysql },
          { name: 'delta', type: 'bigint', default: '0' },
          { name: 'headroom', type: 'bigint', default: '0' },
          // Null: deletes through this share are not bounded.
          { name: 'legroom', type: 'bigint', isNullable: true },
          c.bigint('granted_under', true),
          c.string('granted_on', 10, true),
        ],
        uniques: [{ name: 'tenant_usage_shares_unique', columnNames: ['tenant_id', 'resource', 'share'] }],
      }),
      false,
      true,
      true,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('tenant_usage_shares', true);
  }
}
