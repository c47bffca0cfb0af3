import { Table, TableColumn, type MigrationInterface, type QueryRunner, type TableColumnOptions } from 'typeorm';
import { listIndexName } from '../../common/persistence/list-index.js';
import { SORT_KEY_LENGTH } from '../../common/persistence/sort-key.js';
import { schemaColumns } from '../schema-columns.js';

/**
 * Customer events (docs/customer-events.md): what customers do, tracked by `POST /api/track`.
 *
 * - `customer_event_names`: the tenant's event names, one row per name (compared exactly), with the
 *   count of kept events and the newest one's timestamp, so that events carry a number instead of
 *   repeating the name, and the pickers' list is a read of a small table.
 * - `customer_events`: one row per event, its instants as epoch milliseconds. Its indexes serve the
 *   ways it is read: by name and time (behaviour rules over the last days, retention), by name and
 *   customer (rules over every kept event), by customer and time (a customer's events and timeline;
 *   erasure, merge), and by `message_id` (stored once per tenant). On MariaDB the rows themselves
 *   are kept in (tenant, name, timestamp) order: a rule that looks into the properties of one
 *   name's events of the last days reads them side by side, retention drops a name's oldest days as
 *   ranges, and new events are appended at the end of each name's range. SQLite keeps them in id
 *   order (its rows are ordered by their integer key), with an index of (tenant, name, timestamp).
 * - `tenant_daily_usage`: per tenant, resource and UTC day, how many were used (the tracked events of
 *   a day, under the plan's `tracked_events_per_day`).
 * - the plan's new limit on `tenants`, and the erasure job's count of deleted events.
 */
export class CreateCustomerEventTables1765650000000 implements MigrationInterface {
  name = 'CreateCustomerEventTables1765650000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = schemaColumns(queryRunner);
    // Compared byte for byte, case included, on both databases (SQLite compares bytes anyway).
    const exact: Partial<TableColumnOptions> = c.mysql
      ? { charset: 'utf8mb4', collation: await exactCollation(queryRunner) }
      : {};
    const epochMs = (name: string, isNullable = false): TableColumnOptions => ({ name, type: 'bigint', isNullable });

    await queryRunner.addColumn('tenants', new TableColumn(c.bigint('limit_tracked_events_per_day', true)));
    await queryRunner.addColumn(
      'customer_erasures',
      new TableColumn({ ...c.bigint('customer_events_deleted'), default: '0' }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'customer_event_names',
        columns: [
          c.id(),
          c.bigint('tenant_id'),
          { ...c.string('name'), ...exact },
          { ...c.string('name_key', SORT_KEY_LENGTH, true), ...exact },
          // Signed: a count is moved by deltas, never read below zero.
          { name: 'count', type: 'bigint', default: '0' },
          epochMs('last_seen_at', true),
          ...c.timestamps(),
        ],
        uniques: [{ name: 'tracked_name_unique', columnNames: ['tenant_id', 'name'] }],
        indices: [
          { name: listIndexName('customer_event_names', 'id'), columnNames: ['tenant_id', 'id'] },
          { name: listIndexName('customer_event_names', 'name'), columnNames: ['tenant_id', 'name_key', 'id'] },
          { name: listIndexName('customer_event_names', 'count'), columnNames: ['tenant_id', 'count', 'id'] },
        ],
      }),
      false,
      true,
      true,
    );

    const id = c.id();
    // MariaDB: the primary key is (tenant_id, name_id, occurred_at, id), its columns listed first in
    // that order (TypeORM names a composite key's columns in table order); `id` stays auto-numbered,
    // and its own index (every AUTO_INCREMENT column leads one) serves reads by id.
    const keyed = (options: TableColumnOptions): TableColumnOptions =>
      c.mysql ? { ...options, isPrimary: true } : options;
    await queryRunner.createTable(
      new Table({
        name: 'customer_events',
        columns: c.mysql
          ? [
              keyed(c.bigint('tenant_id')),
              keyed(c.bigint('name_id')),
              keyed(epochMs('occurred_at')),
              id,
              c.bigint('customer_id'),
              { ...c.string('message_id'), ...exact },
              c.text('properties', true),
              ...c.timestamps(),
            ]
          : [
              id,
              c.bigint('tenant_id'),
              c.bigint('name_id'),
              epochMs('occurred_at'),
              c.bigint('customer_id'),
              { ...c.string('message_id'), ...exact },
              c.text('properties', true),
              ...c.timestamps(),
            ],
        uniques: [{ name: 'tracked_message_id_unique', columnNames: ['tenant_id', 'message_id'] }],
        indices: [
          ...(c.mysql
            ? [{ name: 'customer_events_id_index', columnNames: ['id'] }]
            : // SQLite's rows are in id order: (tenant, name, timestamp) is an index of its own there.
              [
                {
                  name: 'customer_events_name_index',
                  columnNames: ['tenant_id', 'name_id', 'occurred_at', 'customer_id'],
                },
              ]),
          // Behaviour rules over every kept event of a name (counts, the newest per customer): one
          // customer's events of the name side by side, read from the index alone in customer order.
          {
            name: 'customer_events_name_customer_index',
            columnNames: ['tenant_id', 'name_id', 'customer_id', 'occurred_at'],
          },
          // A customer's events newest first, the timeline, erasure and merge.
          {
            name: 'customer_events_customer_index',
            columnNames: ['tenant_id', 'customer_id', 'occurred_at', 'id'],
          },
        ],
      }),
      false,
      true,
      true,
    );

    await queryRunner.createTable(
      new Table({
        name: 'tenant_daily_usage',
        columns: [
          c.id(),
          c.bigint('tenant_id'),
          c.string('resource', 32),
          c.string('day', 10),
          { name: 'used', type: 'bigint', default: '0' },
          ...c.timestamps(),
        ],
        uniques: [{ name: 'tenant_daily_usage_day_unique', columnNames: ['tenant_id', 'resource', 'day'] }],
      }),
      false,
      true,
      true,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('tenant_daily_usage', true);
    await queryRunner.dropTable('customer_events', true);
    await queryRunner.dropTable('customer_event_names', true);
    await queryRunner.dropColumn('customer_erasures', 'customer_events_deleted');
    await queryRunner.dropColumn('tenants', 'limit_tracked_events_per_day');
  }
}

/** MariaDB's binary no-pad collation, or MySQL 8's (as migration 1764600000000 chose it). */
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
