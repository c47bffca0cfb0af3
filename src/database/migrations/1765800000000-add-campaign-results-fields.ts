import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The new columns: [table, column, MySQL type, SQLite type]. */
const COLUMNS: [string, string, string, string][] = [
  ['customer_goals', 'event', 'VARCHAR(255) NULL', 'VARCHAR(255) NULL'],
  ['customer_goals', 'conditions', 'TEXT NULL', 'TEXT NULL'],
  ['customer_goals', 'window_days', 'INT UNSIGNED NOT NULL DEFAULT 3', 'INTEGER NOT NULL DEFAULT 3'],
  ['customer_goals', 'value_property', 'VARCHAR(255) NULL', 'VARCHAR(255) NULL'],
  ['campaign_kpis', 'goal_id', 'BIGINT UNSIGNED NULL', 'BIGINT NULL'],
];

/**
 * What the results read of a run, from indexes alone (each covers its statement's columns): the
 * members of a run with their group, and each member's first delivery; and a customer's memberships.
 */
const INDEXES: [table: string, name: string, columns: string][] = [
  ['campaign_run_members', 'campaign_run_members_results_index', 'tenant_id, run_id, customer_id, treatment_group_id'],
  // A customer's memberships: its conversions on the timeline, an erasure of its run rows.
  ['campaign_run_members', 'campaign_run_members_customer_index', 'tenant_id, customer_id, run_id'],
  [
    'campaign_run_recipients',
    'campaign_run_recipients_results_index',
    'tenant_id, run_id, customer_id, status, delivered_at',
  ],
];

/**
 * Campaign results (issue 45, docs/campaign-results.md): a customer goal may be measured by events
 * (`event`; its property conditions as JSON array text in `conditions`, the API's `where`, a word
 * SQL reserves), within `window_days` of the delivery, summing `value_property`; a KPI may name the
 * goal it is measured on (`goal_id`). The members and recipients gain an index each by tenant, run
 * and customer (INDEXES).
 *
 * Plain ALTERs: TypeORM's SQLite addColumn rebuilds the table from a schema it read before the
 * sort-key migration's own ALTERs, and would drop the name_key columns (as 1765600000000 says).
 */
export class AddCampaignResultsFields1765800000000 implements MigrationInterface {
  name = 'AddCampaignResultsFields1765800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    for (const [table, column, mysqlType, sqliteType] of COLUMNS) {
      await queryRunner.query(`ALTER TABLE ${table} ADD COLUMN ${column} ${mysql ? mysqlType : sqliteType}`);
    }
    for (const [table, name, columns] of INDEXES)
      await queryRunner.query(`CREATE INDEX ${name} ON ${table} (${columns})`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    for (const [table, name] of INDEXES)
      await queryRunner.query(mysql ? `DROP INDEX ${name} ON ${table}` : `DROP INDEX ${name}`);
    for (const [table, column] of [...COLUMNS].reverse()) {
      await queryRunner.query(`ALTER TABLE ${table} DROP COLUMN ${column}`);
    }
  }
}
