import type { MigrationInterface, QueryRunner } from 'typeorm';
import { listIndexName } from '../../common/persistence/list-index.js';
import { SORT_KEY_LENGTH, sortKeyOf } from '../../common/persistence/sort-key.js';

/** Tables whose lists sort by a text column ignoring case, with the scope of their list indexes. */
const KEYED: { table: string; source: string; scope: string[] | null }[] = [
  { table: 'marketing_programs', source: 'name', scope: ['tenant_id'] },
  { table: 'campaign_groups', source: 'name', scope: ['tenant_id', 'marketing_program_id'] },
  { table: 'campaigns', source: 'name', scope: ['tenant_id', 'campaign_group_id'] },
  { table: 'treatment_groups', source: 'name', scope: ['tenant_id', 'campaign_id'] },
  { table: 'campaign_kpis', source: 'name', scope: ['tenant_id', 'campaign_id'] },
  { table: 'customer_goals', source: 'name', scope: ['tenant_id', 'campaign_id'] },
  { table: 'validation_rules', source: 'name', scope: ['tenant_id'] },
  { table: 'audiences', source: 'name', scope: ['tenant_id'] },
  { table: 'sub_audiences', source: 'name', scope: ['tenant_id', 'campaign_id'] },
  { table: 'destinations', source: 'name', scope: ['tenant_id'] },
  { table: 'users', source: 'name', scope: ['tenant_id'] },
  { table: 'customers', source: 'last_name', scope: ['tenant_id'] },
  // Small tables above tenancy: no list index.
  { table: 'tenants', source: 'name', scope: null },
  { table: 'roles', source: 'name', scope: null },
  { table: 'permissions', source: 'name', scope: null },
];

/** Identifiers compared exactly (external ids) and e-mail addresses (stored in lower case). */
const EXACT: { table: string; column: string; nullable: boolean }[] = [
  { table: 'customers', column: 'external_id', nullable: true },
  { table: 'customers', column: 'email', nullable: true },
  { table: 'users', column: 'email', nullable: false },
];

const BATCH = 1000;

/**
 * One behaviour on both databases (docs/architecture.md, "Text: case and comparison"). Until now MySQL/MariaDB
 * compared text with utf8mb4_unicode_ci (case- and accent-blind, PAD SPACE, every emoji equal to
 * every other) and SQLite byte for byte. Now:
 * - external ids and e-mail addresses compare exactly on both (a binary, no-pad collation on MySQL);
 * - name sorts (and last-name sorts of customers) use a lower-case key column, compared exactly;
 * - tenant names are unique by that key, so regardless of case.
 * Keys are computed here as the application computes them (String.prototype.toLowerCase), in
 * batches by id.
 */
export class AddSortKeysAndExactIdentifiers1764600000000 implements MigrationInterface {
  name = 'AddSortKeysAndExactIdentifiers1764600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    const exact = mysql ? await exactCollation(queryRunner) : '';
    const keyType = mysql
      ? `VARCHAR(${SORT_KEY_LENGTH}) CHARACTER SET utf8mb4 COLLATE ${exact} NULL`
      : `varchar(${SORT_KEY_LENGTH}) NULL`;
    for (const { table, source, scope } of KEYED) {
      const key = `${source}_key`;
      await queryRunner.query(`ALTER TABLE \`${table}\` ADD COLUMN \`${key}\` ${keyType}`);
      await backfill(queryRunner, table, source, key);
      if (scope) {
        const index = listIndexName(table, source);
        await dropIndex(queryRunner, mysql, table, index);
        await queryRunner.query(
          `CREATE INDEX \`${index}\` ON \`${table}\` (${[...scope, key, 'id'].map((c) => `\`${c}\``).join(', ')})`,
        );
      }
    }
    if (mysql) {
      // The old unique index on `name` is replaced by one on the key, under the same name.
      await queryRunner.query('ALTER TABLE `tenants` DROP INDEX `tenants_name_unique`');
      await queryRunner.query('CREATE UNIQUE INDEX `tenants_name_unique` ON `tenants` (`name_key`)');
      for (const { table, column, nullable } of EXACT) {
        await queryRunner.query(
          `ALTER TABLE \`${table}\` MODIFY \`${column}\` VARCHAR(255) CHARACTER SET utf8mb4 COLLATE ${exact} ${nullable ? 'NULL' : 'NOT NULL'}`,
        );
      }
    } else {
      // SQLite keeps the table's own UNIQUE(name) constraint (implied by this one, so never the
      // first to fail); text already compares byte for byte.
      await queryRunner.query('CREATE UNIQUE INDEX `tenants_name_key_unique` ON `tenants` (`name_key`)');
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    if (mysql) {
      for (const { table, column, nullable } of EXACT) {
        await queryRunner.query(
          `ALTER TABLE \`${table}\` MODIFY \`${column}\` VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci ${nullable ? 'NULL' : 'NOT NULL'}`,
        );
      }
      await queryRunner.query('ALTER TABLE `tenants` DROP INDEX `tenants_name_unique`');
      await queryRunner.query('CREATE UNIQUE INDEX `tenants_name_unique` ON `tenants` (`name`)');
    } else {
      await queryRunner.query('DROP INDEX `tenants_name_key_unique`');
    }
    for (const { table, source, scope } of [...KEYED].reverse()) {
      if (scope) {
        const index = listIndexName(table, source);
        await dropIndex(queryRunner, mysql, table, index);
        await queryRunner.query(
          `CREATE INDEX \`${index}\` ON \`${table}\` (${[...scope, source, 'id'].map((c) => `\`${c}\``).join(', ')})`,
        );
      }
      await queryRunner.query(`ALTER TABLE \`${table}\` DROP COLUMN \`${source}_key\``);
    }
  }
}

/** MariaDB's binary no-pad collation, or MySQL 8's. */
async function exactCollation(queryRunner: QueryRunner): Promise<string> {
  const rows = (await queryRunner.query(
    "SELECT COLLATION_NAME AS name FROM information_schema.COLLATIONS WHERE COLLATION_NAME IN ('utf8mb4_nopad_bin', 'utf8mb4_0900_bin')",
  )) as { name: string }[];
  const name = rows
    .map((r) => r.name)
    .sort()
    .reverse()[0];
  if (!name) throw new Error('the server has no binary no-pad utf8mb4 collation (MariaDB 10.2+ or MySQL 8.0+ needed)');
  return name;
}

async function dropIndex(queryRunner: QueryRunner, mysql: boolean, table: string, index: string): Promise<void> {
  await queryRunner.query(mysql ? `ALTER TABLE \`${table}\` DROP INDEX \`${index}\`` : `DROP INDEX \`${index}\``);
}

/** Sets `key` from `source` for every row, BATCH rows (by id) per statement. */
async function backfill(queryRunner: QueryRunner, table: string, source: string, key: string): Promise<void> {
  for (let after = 0; ;) {
    const rows = (await queryRunner.query(
      `SELECT id, \`${source}\` AS text FROM \`${table}\` WHERE id > ? AND \`${source}\` IS NOT NULL ORDER BY id LIMIT ${BATCH}`,
      [after],
    )) as { id: number | string; text: string }[];
    if (rows.length === 0) return;
    await queryRunner.query(
      `UPDATE \`${table}\` SET \`${key}\` = CASE id ${rows.map(() => 'WHEN ? THEN ?').join(' ')} END
        WHERE id IN (${rows.map(() => '?').join(', ')})`,
      [...rows.flatMap((r) => [r.id, sortKeyOf(r.text)]), ...rows.map((r) => r.id)],
    );
    after = Number(rows[rows.length - 1].id);
  }
}
