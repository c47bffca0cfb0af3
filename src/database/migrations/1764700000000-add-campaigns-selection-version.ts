import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `campaigns.selection_version` is incremented by every write that changes which customers a
 * campaign selects or how it assigns them (its treatment groups, its audience links, the rules
 * and match of a linked audience). An instance may then keep a campaign's definition under
 * (campaign, version) and check the version in the assignment lookup's one statement
 * (docs/audiences.md).
 */
export class AddCampaignsSelectionVersion1764700000000 implements MigrationInterface {
  name = 'AddCampaignsSelectionVersion1764700000000';

  // Plain ALTERs: TypeORM's SQLite addColumn rebuilds the table from a schema it read before the
  // sort-key migration's own ALTERs, and would drop the name_key column.
  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    await queryRunner.query(
      `ALTER TABLE campaigns ADD COLUMN selection_version ${mysql ? 'INT UNSIGNED' : 'INTEGER'} NOT NULL DEFAULT 0`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE campaigns DROP COLUMN selection_version');
  }
}
