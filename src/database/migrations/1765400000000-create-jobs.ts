import { Table, TableColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { schemaColumns } from '../schema-columns.js';

/** The tables whose rows carried their own lease before the jobs table took leases over. */
const LEASED_TABLES = ['customer_imports', 'customer_erasures', 'webhook_deliveries'];

/**
 * Background work in one shape (src/common/jobs, docs/architecture.md#background-work): `jobs` holds
 * every piece of work waiting or in flight (a CSV import, an erasure, a webhook delivery, a
 * retention sweep), claimed under a lease; `job_lanes` keeps a lane's rate (when its next job may
 * start) and is the row a claim locks to count the lane's jobs in flight. The import, erasure and
 * delivery rows keep what their API shows and lose their own lease columns; what was queued or in
 * flight becomes a job. `feed_cursors` is how far a consumer of the change feed has followed each
 * tenant's events: webhooks fan out after the numbering pass now rather than inside it, and
 * everything numbered so far was fanned out by the pass that numbered it.
 */
export class CreateJobs1765400000000 implements MigrationInterface {
  name = 'CreateJobs1765400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const c = schemaColumns(queryRunner);
    await queryRunner.createTable(
      new Table({
        name: 'jobs',
        columns: [
          c.id(),
          c.string('queue', 64),
          { ...c.string('lane', 191), default: "''" },
          c.bigint('tenant_id', true),
          c.bigint('subject_id', true),
          c.mediumText('payload', true),
          c.string('unique_key', 191, true),
          { name: 'attempts', type: c.mysql ? 'int' : 'integer', unsigned: c.mysql, default: '0' },
          c.bigint('run_at'),
          c.string('lease_owner', 64, true),
          c.bigint('lease_expires_at', true),
          c.text('last_error', true),
          c.bigint('created_at'),
          c.bigint('updated_at'),
        ],
        uniques: [{ name: 'jobs_queue_unique_key_unique', columnNames: ['queue', 'unique_key'] }],
        indices: [
          // The claim: the due lanes of a queue, then a lane's due jobs, oldest first. A claimed job's
          // run_at moves to its lease's end, so what is due is what may be claimed.
          { name: 'jobs_due_index', columnNames: ['queue', 'lane', 'run_at', 'id'] },
          // A lane's jobs in flight, which a claim counts under its lane's lock.
          { name: 'jobs_lease_index', columnNames: ['queue', 'lane', 'lease_expires_at'] },
          // The job of a subject (an import cancelled, a delivery retried).
          { name: 'jobs_subject_index', columnNames: ['queue', 'subject_id'] },
        ],
      }),
      false,
      true,
      true,
    );
    await queryRunner.createTable(
      new Table({
        name: 'job_lanes',
        columns: [
          { ...c.string('queue', 64), isPrimary: true },
          { ...c.string('lane', 191), isPrimary: true },
          { ...c.bigint('next_start_at'), default: '0' },
        ],
      }),
      false,
      true,
      true,
    );
    await queryRunner.createTable(
      new Table({
        name: 'feed_cursors',
        columns: [
          { ...c.string('consumer', 64), isPrimary: true },
          { ...c.bigint('tenant_id'), isPrimary: true },
          c.bigint('through'),
        ],
      }),
      false,
      true,
      true,
    );
    await queryRunner.query(
      `INSERT INTO feed_cursors (consumer, tenant_id, through)
       SELECT 'webhooks', tenant_id, last_sequence FROM event_counters WHERE tenant_id > 0`,
    );
    const now = Date.now();
    const concat = (...parts: string[]) => (c.mysql ? `CONCAT(${parts.join(', ')})` : parts.join(' || '));
    const queued = (
      queue: string,
      from: string,
      columns: { lane: string; key: string; attempts: string; runAt: string },
    ) =>
      queryRunner.query(
        `INSERT INTO jobs (queue, lane, tenant_id, subject_id, unique_key, attempts, run_at, created_at, updated_at)
         SELECT '${queue}', ${columns.lane}, tenant_id, id, ${columns.key}, ${columns.attempts}, ${columns.runAt}, ${now}, ${now}
           FROM ${from}`,
      );
    const job = { lane: "''", key: 'NULL', attempts: '0', runAt: String(now) };
    await queued('customer-import', "customer_imports WHERE status IN ('queued', 'running')", job);
    await queued('customer-erasure', "customer_erasures WHERE status IN ('queued', 'running')", job);
    await queued('webhook-delivery', "webhook_deliveries WHERE status = 'pending'", {
      lane: concat("'webhook:'", 'webhook_id'),
      key: concat("'delivery:'", 'id'),
      attempts: 'attempts',
      runAt: `COALESCE(next_attempt_at, ${now})`,
    });
    await queryRunner.dropIndex('customer_erasures', 'customer_erasures_status_index');
    for (const table of LEASED_TABLES) {
      await queryRunner.dropColumn(table, 'lease_owner');
      await queryRunner.dropColumn(table, 'lease_expires_at');
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const c = schemaColumns(queryRunner);
    for (const table of LEASED_TABLES) {
      await queryRunner.addColumn(table, new TableColumn(c.string('lease_owner', 64, true)));
      await queryRunner.addColumn(table, new TableColumn(c.bigint('lease_expires_at', true)));
    }
    await queryRunner.query(
      'CREATE INDEX customer_erasures_status_index ON customer_erasures (status, lease_expires_at)',
    );
    for (const table of ['feed_cursors', 'job_lanes', 'jobs']) await queryRunner.dropTable(table, true);
  }
}
