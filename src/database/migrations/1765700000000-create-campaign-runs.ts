import { Table, TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { schemaColumns } from '../schema-columns.js';

/**
 * Campaign runs (docs/campaign-runs.md): a run of a campaign; its members, recorded once at the
 * snapshot (each with its treatment group, or why it was excluded); one recipient row per member
 * and association that sends it something; the last record delivered per association and customer
 * (what the next run diffs against); a campaign's schedule; a tenant's frequency caps.
 */
export class CreateCampaignRuns1765700000000 implements MigrationInterface {
  name = 'CreateCampaignRuns1765700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = schemaColumns(queryRunner);
    const int = (name: string) => ({ name, type: c.mysql ? 'int' : 'integer', unsigned: c.mysql, default: '0' });
    await queryRunner.createTable(
      new Table({
        name: 'campaign_runs',
        columns: [
          c.id(),
          c.bigint('tenant_id'),
          c.bigint('campaign_id'),
          c.string('status', 16),
          c.string('trigger', 16),
          c.boolean('dry_run', false),
          // The tick of the schedule that started it: one run per tick, whichever instance saw it.
          c.bigint('scheduled_for', true),
          // The campaign while the run is queued, running or paused (null after): one such run per campaign.
          c.bigint('active_campaign_id', true),
          c.mediumText('counts'),
          // Where the run's job is: its phase, and how far the phase got (a resumed job goes on from there).
          c.string('phase', 16),
          c.bigint('progress', true),
          c.text('error', true),
          c.bigint('created_by', true),
          c.timestamp('started_at'),
          c.bigint('snapshot_at', true),
          c.timestamp('finished_at'),
          ...c.timestamps(),
        ],
        uniques: [
          { name: 'runs_active_campaign_id_unique', columnNames: ['active_campaign_id'] },
          { name: 'runs_scheduled_for_unique', columnNames: ['campaign_id', 'scheduled_for'] },
        ],
        indices: [{ name: 'campaign_runs_list_id_index', columnNames: ['tenant_id', 'campaign_id', 'id'] }],
      }),
      false,
      true,
      true,
    );
    await queryRunner.createTable(
      new Table({
        name: 'campaign_run_members',
        columns: [
          c.id(),
          c.bigint('tenant_id'),
          c.bigint('run_id'),
          c.bigint('customer_id'),
          c.bigint('treatment_group_id', true),
          // Why the member receives nothing although eligible: inactive, suppressed, invalid, capped.
          c.string('excluded', 16, true),
          ...c.timestamps(),
        ],
        uniques: [{ name: 'campaign_run_members_customer_unique', columnNames: ['run_id', 'customer_id'] }],
        indices: [
          { name: 'campaign_run_members_group_index', columnNames: ['run_id', 'treatment_group_id', 'excluded'] },
        ],
      }),
      false,
      true,
      true,
    );
    await queryRunner.createTable(
      new Table({
        name: 'campaign_run_recipients',
        columns: [
          c.id(),
          c.bigint('tenant_id'),
          c.bigint('run_id'),
          c.bigint('campaign_destination_id'),
          c.bigint('customer_id'),
          c.bigint('treatment_group_id', true),
          c.string('action', 8),
          c.string('status', 16),
          c.text('reason', true),
          int('attempts'),
          c.text('last_error', true),
          c.string('message_id', 64),
          c.string('checksum', 64, true),
          // Which delivery batch of its association it goes in (a job each).
          int('batch'),
          c.bigint('delivered_at', true),
          ...c.timestamps(),
        ],
        indices: [
          { name: 'campaign_run_recipients_batch_index', columnNames: ['run_id', 'campaign_destination_id', 'batch'] },
          { name: 'campaign_run_recipients_list_id_index', columnNames: ['tenant_id', 'run_id', 'id'] },
          { name: 'campaign_run_recipients_customer_index', columnNames: ['tenant_id', 'customer_id', 'delivered_at'] },
        ],
      }),
      false,
      true,
      true,
    );
    await queryRunner.createTable(
      new Table({
        name: 'campaign_delivery_state',
        columns: [
          c.id(),
          c.bigint('tenant_id'),
          c.bigint('campaign_destination_id'),
          c.bigint('customer_id'),
          c.string('checksum', 64),
          c.string('action', 8),
          c.bigint('run_id'),
          c.bigint('delivered_at'),
          ...c.timestamps(),
        ],
        uniques: [{ name: 'campaign_delivery_state_unique', columnNames: ['campaign_destination_id', 'customer_id'] }],
        indices: [{ name: 'campaign_delivery_state_customer_index', columnNames: ['tenant_id', 'customer_id'] }],
      }),
      false,
      true,
      true,
    );
    await queryRunner.createTable(
      new Table({
        name: 'campaign_schedules',
        columns: [
          c.id(),
          c.bigint('tenant_id'),
          c.bigint('campaign_id'),
          c.bigint('at', true),
          c.string('cron', 255, true),
          c.string('timezone', 64, true),
          c.bigint('next_run_at', true),
          ...c.timestamps(),
        ],
        uniques: [{ name: 'campaign_schedules_campaign_unique', columnNames: ['campaign_id'] }],
        indices: [{ name: 'campaign_schedules_due_index', columnNames: ['next_run_at'] }],
      }),
      false,
      true,
      true,
    );
    await queryRunner.createTable(
      new Table({
        name: 'messaging_limits',
        columns: [c.id(), c.bigint('tenant_id'), c.text('rules'), ...c.timestamps()],
        uniques: [{ name: 'messaging_limits_tenant_unique', columnNames: ['tenant_id'] }],
      }),
      false,
      true,
      true,
    );
    // An erasure deletes the customers' run rows too, and counts them.
    await queryRunner.addColumn(
      'customer_erasures',
      new TableColumn({ ...c.bigint('campaign_rows_deleted'), default: '0' }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn('customer_erasures', 'campaign_rows_deleted');
    for (const table of [
      'messaging_limits',
      'campaign_schedules',
      'campaign_delivery_state',
      'campaign_run_recipients',
      'campaign_run_members',
      'campaign_runs',
    ])
      await queryRunner.dropTable(table, true);
  }
}
