import { Table, TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { sqliteDateTime } from '../../common/persistence/database.js';
import { schemaColumns } from '../schema-columns.js';

/** The tables whose records count against a tenant's plan, by the name the usage answer gives them. */
const COUNTED = { customers: 'customers', audiences: 'audiences', campaigns: 'campaigns', webhooks: 'webhooks' };

/**
 * Plans and usage (docs/plans-and-usage.md): a tenant's limits (null: unlimited); its record counts,
 * with the day each threshold was last announced, taken once here and then moved by the change
 * feed's events; and on each event whether its write counted it already (a write under a limit).
 */
export class AddTenantLimitsAndUsage1765100000000 implements MigrationInterface {
  name = 'AddTenantLimitsAndUsage1765100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = schemaColumns(queryRunner);
    for (const limit of ['api_calls_per_day', ...Object.keys(COUNTED)]) {
      await queryRunner.addColumn('tenants', new TableColumn(c.bigint(`limit_${limit}`, true)));
    }
    await queryRunner.createTable(
      new Table({
        name: 'tenant_usage',
        columns: [
          c.id(),
          c.bigint('tenant_id'),
          c.string('resource', 32),
          // Signed: a record written around the service (SQL) and deleted through it takes it below what it counted.
          { name: 'count', type: 'bigint', default: '0' },
          c.string('warned_80_on', 10, true),
          c.string('warned_100_on', 10, true),
          ...c.timestamps(),
        ],
        uniques: [{ name: 'tenant_usage_resource_unique', columnNames: ['tenant_id', 'resource'] }],
      }),
      false,
      true,
      true,
    );
    await queryRunner.addColumn('events', new TableColumn(c.boolean('counted', false)));
    // The counts below are taken from the tables: events not numbered yet are in them already.
    await queryRunner.query('UPDATE events SET counted = 1 WHERE sequence IS NULL');
    const now = c.mysql ? new Date() : sqliteDateTime(new Date());
    for (const [resource, table] of Object.entries(COUNTED)) {
      await queryRunner.query(
        `INSERT INTO tenant_usage (tenant_id, resource, count, created_at, updated_at)
         SELECT n.id, ?, (SELECT COUNT(*) FROM ${table} r WHERE r.tenant_id = n.id), ?, ? FROM tenants n`,
        [resource, now, now],
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('events', 'counted');
    await queryRunner.dropTable('tenant_usage', true);
    for (const limit of ['api_calls_per_day', ...Object.keys(COUNTED)]) {
      await queryRunner.dropColumn('tenants', `limit_${limit}`);
    }
  }
}
