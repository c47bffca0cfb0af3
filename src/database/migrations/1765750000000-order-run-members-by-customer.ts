import { TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';

const GROUP_INDEX = new TableIndex({
  name: 'campaign_run_members_group_index',
  columnNames: ['run_id', 'treatment_group_id', 'excluded'],
});
const PAGE_INDEX = new TableIndex({
  name: 'campaign_run_members_page_index',
  columnNames: ['run_id', 'customer_id', 'treatment_group_id', 'excluded'],
});

/**
 * A run's members are read page by page in customer order, by group and exclusion (planning, the
 * suppression check). Through (run_id, treatment_group_id, excluded) every page sorted all the
 * members left after it (a filesort of up to a million rows per page of 2,000); through
 * (run_id, customer_id, treatment_group_id, excluded) a page is a walk in order that stops at its
 * end, and the counts by group still read the index alone.
 */
export class OrderRunMembersByCustomer1765750000000 implements MigrationInterface {
  name = 'OrderRunMembersByCustomer1765750000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndex('campaign_run_members', PAGE_INDEX);
    await queryRunner.dropIndex('campaign_run_members', GROUP_INDEX);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createIndex('campaign_run_members', GROUP_INDEX);
    await queryRunner.dropIndex('campaign_run_members', PAGE_INDEX);
  }
}
