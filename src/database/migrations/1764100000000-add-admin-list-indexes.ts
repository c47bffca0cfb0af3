import { TableIndex, type MigrationInterface, type QueryRunner } from 'typeorm';
import { listIndexName } from '../../common/persistence/list-index.js';

/**
 * Indexes for the admin lists: every user-list sort, and the activity log's sort and filters
 * (the log is the largest table; its filters name subject, causer or event within a tenant).
 */
const INDEXES: [string, string, string[]][] = [
  ['users', listIndexName('users', 'name'), ['tenant_id', 'name', 'id']],
  ['users', listIndexName('users', 'email'), ['tenant_id', 'email', 'id']],
  ['users', listIndexName('users', 'created_at'), ['tenant_id', 'created_at', 'id']],
  ['activity_log', listIndexName('activity_log', 'created_at'), ['tenant_id', 'created_at', 'id']],
  ['activity_log', 'activity_log_tenant_subject_index', ['tenant_id', 'subject_type', 'subject_id', 'id']],
  ['activity_log', 'activity_log_tenant_causer_index', ['tenant_id', 'causer_id', 'id']],
  ['activity_log', 'activity_log_tenant_event_index', ['tenant_id', 'event', 'id']],
];

export class AddAdminListIndexes1764100000000 implements MigrationInterface {
  name = 'AddAdminListIndexes1764100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const [table, name, columnNames] of INDEXES) {
      await queryRunner.createIndex(table, new TableIndex({ name, columnNames }));
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const [table, name] of [...INDEXES].reverse()) await queryRunner.dropIndex(table, name);
  }
}
