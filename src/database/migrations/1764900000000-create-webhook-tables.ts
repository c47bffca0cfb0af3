import { Table, type MigrationInterface, type QueryRunner } from 'typeorm';
import { schemaColumns } from '../schema-columns.js';

/**
 * Webhooks (docs/webhooks.md): the endpoints of a tenant, one delivery per event and endpoint
 * (created by the change feed's numbering pass, claimed under leases by any instance), and every
 * attempt of a delivery with the first KiB of the answer. Instants the service computes with are
 * epoch milliseconds.
 */
export class CreateWebhookTables1764900000000 implements MigrationInterface {
  name = 'CreateWebhookTables1764900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = schemaColumns(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'webhooks',
        columns: [
          c.id(),
          c.bigint('tenant_id'),
          c.string('url', 2048),
          c.text('events'),
          c.mediumText('description', true),
          c.boolean('is_active', true),
          c.string('disabled_reason', 16, true),
          c.string('secret', 64),
          c.string('previous_secret', 64, true),
          c.bigint('previous_secret_expires_at', true),
          c.bigint('failing_since', true),
          c.bigint('active_since'),
          ...c.timestamps(),
        ],
        indices: [{ name: 'webhooks_list_id_index', columnNames: ['tenant_id', 'id'] }],
      }),
      false,
      true,
      true,
    );
    await queryRunner.createTable(
      new Table({
        name: 'webhook_deliveries',
        columns: [
          c.id(),
          c.bigint('tenant_id'),
          c.bigint('webhook_id'),
          c.bigint('event_id'),
          c.string('event_type', 64),
          c.string('status', 16),
          { ...c.bigint('attempts'), default: '0' },
          c.bigint('next_attempt_at', true),
          c.bigint('queued_at'),
          { name: 'last_status_code', type: c.mysql ? 'int' : 'integer', isNullable: true },
          c.text('last_error', true),
          c.string('lease_owner', 64, true),
          c.bigint('lease_expires_at', true),
          c.timestamp('delivered_at'),
          ...c.timestamps(),
        ],
        indices: [
          // The workers' claim: due pending deliveries, oldest first.
          { name: 'webhook_deliveries_status_next_attempt_at_index', columnNames: ['status', 'next_attempt_at'] },
          // The delivery log of one endpoint, newest first.
          { name: 'webhook_deliveries_list_id_index', columnNames: ['tenant_id', 'webhook_id', 'id'] },
          { name: 'webhook_deliveries_event_id_index', columnNames: ['event_id'] },
        ],
      }),
      false,
      true,
      true,
    );
    await queryRunner.createTable(
      new Table({
        name: 'webhook_attempts',
        columns: [
          c.id(),
          c.bigint('tenant_id'),
          c.bigint('delivery_id'),
          c.bigint('at'),
          { name: 'status_code', type: c.mysql ? 'int' : 'integer', isNullable: true },
          c.bigint('duration_ms'),
          c.text('error', true),
          c.text('response_body', true),
          ...c.timestamps(),
        ],
        indices: [{ name: 'webhook_attempts_delivery_id_index', columnNames: ['delivery_id', 'id'] }],
      }),
      false,
      true,
      true,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['webhook_attempts', 'webhook_deliveries', 'webhooks'])
      await queryRunner.dropTable(table, true);
  }
}
