import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../common/config/app-config.js';
import type { JobContext, JobHandler, JobOutcome, QueueSettings } from '../../common/jobs/job.js';
import { SERVICE_RETRIES } from '../../common/jobs/retry-schedule.js';
import { Tables } from '../../common/persistence/tables.js';

export const RUN_RETENTION_QUEUE = 'campaign-run-retention';

/** The retention's writes: the service's own, no one's request. */
const RETENTION = { requestId: RUN_RETENTION_QUEUE, job: true };
/** Recipient rows deleted per transaction: short, beside the request path. */
const ROWS_PER_TRANSACTION = 5_000;

/**
 * Hourly: the recipient rows of runs finished more than RUN_RETENTION_DAYS ago go, except each
 * (association, customer)'s newest record delivered (the one campaign_delivery_state names: what
 * the next run diffs against). The runs, their counts and their members stay (results read them).
 */
@Injectable()
export class RunRetention implements JobHandler {
  readonly settings: QueueSettings;

  constructor(
    private readonly tables: Tables,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.settings = {
      name: RUN_RETENTION_QUEUE,
      enabled: config.runs.runner,
      concurrency: 1,
      leaseMs: 10 * 60_000,
      pollMs: 60_000,
      retry: SERVICE_RETRIES,
      maxWaitSeconds: 2 * 3600,
      everyMs: 3600_000,
    };
  }

  async run(_job: unknown, context: JobContext): Promise<JobOutcome> {
    const before = new Date(Date.now() - this.config.runs.retentionDays * 86_400_000);
    let removed = 0;
    while (!context.shouldStop()) {
      const batch = await this.tables.writeAcrossTenants(RETENTION, async (_tx, sql) => {
        await context.fence(sql);
        const old = await sql.query<{ id: number | string }>(
          `SELECT r.id FROM campaign_run_recipients r
             JOIN campaign_runs u ON u.id = r.run_id AND u.phase = 'done' AND u.finished_at < ?
            WHERE NOT EXISTS (
              SELECT 1 FROM campaign_delivery_state s
               WHERE s.campaign_destination_id = r.campaign_destination_id AND s.customer_id = r.customer_id
                 AND s.run_id = r.run_id)
            ORDER BY r.id LIMIT ${ROWS_PER_TRANSACTION}`,
          [before],
        );
        const ids = old.map((row) => Number(row.id));
        if (ids.length === 0) return 0;
        await sql.run(`DELETE FROM campaign_run_recipients WHERE id IN (${ids.map(() => '?').join(', ')})`, ids);
        return ids.length;
      });
      removed += batch;
      if (batch < ROWS_PER_TRANSACTION) break;
    }
    return { status: 'done', note: `${removed} recipient rows removed` };
  }
}
