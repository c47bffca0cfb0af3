import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../common/config/app-config.js';
import type { JobContext, JobHandler, JobOutcome, QueueSettings } from '../../../common/jobs/job.js';
import { SERVICE_RETRIES } from '../../../common/jobs/retry-schedule.js';
import { Tables } from '../../../common/persistence/tables.js';

/** Deliveries (and their attempts) are kept this long. */
const DELIVERY_RETENTION_MS = 30 * 24 * 3600 * 1000;
/** The retention's writes: the service's own, no one's request. */
const RETENTION = { requestId: 'webhook-retention', job: true };
/** Deliveries removed per transaction: short, so that the delivery log's writers never wait long. */
const BATCH = 1_000;

/** The webhook log's retention as a recurring job: every hour, the deliveries older than 30 days go with their attempts, oldest first. */
@Injectable()
export class DeliveryRetention implements JobHandler {
  readonly settings: QueueSettings;

  constructor(
    private readonly tables: Tables,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.settings = {
      name: 'webhook-retention',
      enabled: config.webhooks.worker,
      concurrency: 1,
      leaseMs: 60_000,
      pollMs: config.webhooks.pollMs,
      retry: SERVICE_RETRIES,
      maxWaitSeconds: 2 * 3600,
      everyMs: 3600_000,
    };
  }

  async run(_job: unknown, context: JobContext): Promise<JobOutcome> {
    const before = new Date(Date.now() - DELIVERY_RETENTION_MS);
    let removed = 0;
    while (!context.shouldStop()) {
      const batch = await this.tables.writeAcrossTenants(RETENTION, async (_tx, sql) => {
        await context.fence(sql);
        const old = await sql.query<{ id: number | string }>(
          `SELECT id FROM webhook_deliveries WHERE created_at < ? AND status <> 'pending' ORDER BY id LIMIT ${BATCH}`,
          [before],
        );
        const ids = old.map((row) => Number(row.id));
        if (ids.length === 0) return 0;
        const marks = ids.map(() => '?').join(', ');
        await sql.run(`DELETE FROM webhook_attempts WHERE delivery_id IN (${marks})`, ids);
        await sql.run(`DELETE FROM webhook_deliveries WHERE id IN (${marks})`, ids);
        return ids.length;
      });
      removed += batch;
      if (batch < BATCH) break;
    }
    return { status: 'done', note: `${removed} deliveries removed` };
  }
}
