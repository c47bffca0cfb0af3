import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The new columns: [table, column, MySQL type, SQLite type]. */
const COLUMNS: [string, string, string, string][] = [
  ['destinations', 'secrets', 'MEDIUMTEXT NULL', 'TEXT NULL'],
  ['destinations', 'signing_secret', 'TEXT NULL', 'TEXT NULL'],
  ['destinations', 'previous_signing_secret', 'TEXT NULL', 'TEXT NULL'],
  ['destinations', 'previous_signing_secret_expires_at', 'BIGINT UNSIGNED NULL', 'BIGINT NULL'],
  ['destinations', 'last_success_at', 'TIMESTAMP NULL DEFAULT NULL', 'DATETIME NULL'],
  ['destinations', 'last_failure_at', 'TIMESTAMP NULL DEFAULT NULL', 'DATETIME NULL'],
  ['destinations', 'last_error', 'TEXT NULL', 'TEXT NULL'],
  ['destinations', 'consecutive_failures', 'INT UNSIGNED NOT NULL DEFAULT 0', 'INTEGER NOT NULL DEFAULT 0'],
  ['customers', 'unsubscribed_at', 'TIMESTAMP NULL DEFAULT NULL', 'DATETIME NULL'],
];

/**
 * Destinations that deliver (docs/destinations.md): beside `connection_details` (kept as answered,
 * every secret as `********`) a destination keeps its secrets sealed (AES-256-GCM), the generated
 * signing secret of a webhook destination and the one it replaced (signing beside it for a day),
 * and its health (when it last delivered, last failed and why, failures since the last success).
 * A customer who followed an unsubscribe link has `unsubscribed_at`.
 *
 * Plain ALTERs: TypeORM's SQLite addColumn rebuilds the table from a schema it read before the
 * sort-key migration's own ALTERs, and would drop the name_key columns (as 1764700000000 says).
 */
export class AddDestinationDelivery1765600000000 implements MigrationInterface {
  name = 'AddDestinationDelivery1765600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    for (const [table, column, mysqlType, sqliteType] of COLUMNS) {
      await queryRunner.query(`ALTER TABLE ${table} ADD COLUMN ${column} ${mysql ? mysqlType : sqliteType}`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const [table, column] of [...COLUMNS].reverse()) {
      await queryRunner.query(`ALTER TABLE ${table} DROP COLUMN ${column}`);
    }
  }
}
