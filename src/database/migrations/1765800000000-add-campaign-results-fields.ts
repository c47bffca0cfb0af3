import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The new columns: [table, column, MySQL type, SQLite type]. */
const COLUMNS: [string, string, string, string][] = [
  ['customer_goals', 'event', 'VARCHAR(255) NULL', 'VARCHAR(255) NULL'],
  ['customer_goals', 'conditions', 'TEXT NULL', 'TEXT NULL'],
  ['customer_goals', 'window_days', 'INT UNSIGNED NOT NULL DEFAULT 3', 'INTEGER NOT NULL DEFAULT 3'],
  ['customer_goals', 'value_property', 'VARCHAR(255) NULL', 'VARCHAR(255) NULL'],
  ['campaign_kpis', 'goal_id', 'BIGINT UNSIGNED NULL', 'BIGINT NULL'],
];

const RECIPIENTS_INDEX = 'campaign_run_recipients_run_customer_index';

/**
 * Campaign results (issue 45, docs/campaign-results.md): a customer goal may be measured by events
 * (`event`; its property conditions as JSON array text in `conditions`, the API's `where`, a word
 * SQL reserves), within `window_days` of the delivery, summing `value_property`; a KPI may name the
 * goal it is measured on (`goal_id`). The recipients gain an index by run and customer: the results
 * read each member's first delivery in its run from the index alone.
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
    await queryRunner.query(
      `CREATE INDEX ${RECIPIENTS_INDEX} ON campaign_run_recipients (run_id, customer_id, status, delivered_at)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    await queryRunner.query(
      mysql ? `DROP INDEX ${RECIPIENTS_INDEX} ON campaign_run_recipients` : `DROP INDEX ${RECIPIENTS_INDEX}`,
    );
    for (const [table, column] of [...COLUMNS].reverse()) {
      await queryRunner.query(`ALTER TABLE ${table} DROP COLUMN ${column}`);
    }
  }
}
