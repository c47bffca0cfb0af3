import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { schemaColumns } from '../schema-columns.js';

/**
 * The change feed (docs/change-feed.md): one `events` row per change of a record, written in the
 * change's own transaction with `sequence` NULL, and numbered per tenant after commit by the
 * sequencer, which keeps each tenant's last number in `event_counters` (row 0 is the sequencer's
 * own: holding it is what makes one sequencer run at a time). Retention moves `purged_through`
 * (the last sequence it removed) and `purged_until` (epoch ms: events before it are gone), so that
 * a cursor or `since` behind them answers 410.
 */
export class CreateChangeFeedTables1764800000000 implements MigrationInterface {
  name = 'CreateChangeFeedTables1764800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = schemaColumns(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'events',
        columns: [
          c.id(),
          c.bigint('tenant_id'),
          c.bigint('sequence', true),
          c.string('type', 64),
          c.string('resource', 64),
          c.bigint('resource_id'),
          c.longText('data'),
          c.text('changes'),
          c.bigint('causer_id', true),
          c.string('request_id', 64, true),
          // Epoch milliseconds: one instant on both databases, ordered and compared as a number.
          c.bigint('occurred_at'),
        ],
        indices: [
          { name: 'events_tenant_id_sequence_unique', columnNames: ['tenant_id', 'sequence'], isUnique: true },
          // The sequencer reads the rows still without a number, oldest first.
          { name: 'events_sequence_id_index', columnNames: ['sequence', 'id'] },
          // One record's history: its events in id order are its writes' order (and so the feed's), and
          // an index without `sequence` is not rewritten when the sequencer numbers a row.
          {
            name: 'events_tenant_id_resource_resource_id_id_index',
            columnNames: ['tenant_id', 'resource', 'resource_id', 'id'],
          },
        ],
      }),
      false,
      true,
      true,
    );
    await queryRunner.createTable(
      new Table({
        name: 'event_counters',
        columns: [
          { ...c.bigint('tenant_id'), isPrimary: true },
          { ...c.bigint('last_sequence'), default: '0' },
          { ...c.bigint('purged_through'), default: '0' },
          { ...c.bigint('purged_until'), default: '0' },
        ],
      }),
      false,
      true,
      true,
    );
    await queryRunner.query(
      'INSERT INTO event_counters (tenant_id, last_sequence, purged_through, purged_until) VALUES (0, 0, 0, 0)',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('event_counters', true);
    await queryRunner.dropTable('events', true);
  }
}
