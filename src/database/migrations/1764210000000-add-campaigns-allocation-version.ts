import { TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * `campaigns.allocation_version` is incremented by every write of a campaign's treatment groups:
 * writes of one campaign's groups then conflict on every node of a Galera cluster as on one server,
 * so the rule "allocations add up to at most 100" holds everywhere.
 */
export class AddCampaignsAllocationVersion1764210000000 implements MigrationInterface {
  name = 'AddCampaignsAllocationVersion1764210000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const mysql = queryRunner.connection.driver.options.type === 'mysql';
    await queryRunner.addColumn(
      'campaigns',
      new TableColumn({ name: 'allocation_version', type: mysql ? 'int' : 'integer', unsigned: mysql, default: 0 }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('campaigns', 'allocation_version');
  }
}
