import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { schemaColumns } from '../schema-columns.js';
import { foreignKey } from '../schema-keys.js';

/**
 * An import writes several chunks at once (docs/bulk-data.md). Each chunk's transaction holds one of its
 * job's lane rows from its start and, before its progress, waits for the lane of the chunk before:
 * chunks commit in file order, and every wait between them is a lock the database can see.
 */
export class CreateCustomerImportLanes1765300000000 implements MigrationInterface {
  name = 'CreateCustomerImportLanes1765300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = schemaColumns(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'customer_import_lanes',
        columns: [
          { ...c.bigint('import_id'), isPrimary: true },
          { name: 'lane', type: 'int', unsigned: c.mysql, isPrimary: true },
        ],
        foreignKeys: [foreignKey('customer_import_lanes', 'import_id', 'customer_imports', 'CASCADE')],
      }),
      false,
      true,
      true,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('customer_import_lanes', true);
  }
}
