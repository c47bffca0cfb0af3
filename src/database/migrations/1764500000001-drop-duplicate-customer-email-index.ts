import { TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * `customers_email_index` has the very columns of `customers_list_email_index` (tenant_id, email,
 * id): every insert paid for the same index twice. The list index serves the e-mail filter and sort.
 */
export class DropDuplicateCustomerEmailIndex1764500000001 implements MigrationInterface {
  name = 'DropDuplicateCustomerEmailIndex1764500000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex('customers', 'customers_email_index');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndex(
      'customers',
      new TableIndex({ name: 'customers_email_index', columnNames: ['tenant_id', 'email', 'id'] }),
    );
  }
}
