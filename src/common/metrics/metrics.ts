import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { Database } from '../persistence/database.js';
import type { PoolStats } from '../persistence/pool-stats.js';
import { JOBS_BACKLOG_SOURCE, type JobsBacklogSource, type LaneBacklog } from './jobs-backlog.js';

/**
 * Request latency buckets, in seconds: few (every bucket is a series per operation and status class),
 * dense where this service's answers are (a GET takes about a millisecond, the p99 targets are 10 to
 * 30 ms, docs/performance.md), and wide enough to tell a slow batch from a stuck one.
 */
export const LATENCY_BUCKETS = [0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5];

/** The `operation` of requests that no route answered (404 of an unknown path), so that paths never become labels. */
export const UNMATCHED_OPERATION = 'unmatched';

export type WebhookDeliveryOutcome = 'delivered' | 'retry' | 'failed';
const WEBHOOK_OUTCOMES: readonly WebhookDeliveryOutcome[] = ['delivered', 'retry', 'failed'];

/** What became of one run of a job (the jobs primitive's `Settled.final`). */
export type JobAttemptOutcome = 'done' | 'retry' | 'failed' | 'again' | 'released' | 'lost';

/** The label sets of one operation's requests, one per status class (1xx to 5xx), made once per route. */
export type OperationLabels = readonly { operation: string; status_class: string }[];

/** The label sets of an operation's requests, made once when its route is registered (labelOperations). */
export function operationLabels(operation: string): OperationLabels {
  return ['1xx', '2xx', '3xx', '4xx', '5xx'].map((statusClass) => ({ operation, status_class: statusClass }));
}

/** A scrape waits this long at most for the jobs' backlog, then answers without it. */
const BACKLOG_TIMEOUT_MS = 3_000;

/**
 * The service's Prometheus metrics (prom-client), in a registry of the application's own (tests run
 * several applications in one process), rendered by GET /metrics (http-metrics.ts). Off unless
 * METRICS_TOKEN or METRICS_PORT is set: then nothing is collected but the two counters, which cost
 * an increment when a webhook or a job attempt is recorded. Every label is the service's own
 * vocabulary (operation ids, status classes, queue names, outcomes): no tenant, user or record.
 */
@Injectable()
export class Metrics {
  readonly enabled: boolean;
  private readonly logger = new Logger('Metrics');
  private readonly registry = new Registry();
  private readonly requestDuration: Histogram<'operation' | 'status_class'>;
  private readonly webhookDeliveries: Counter<'outcome'>;
  private readonly jobAttempts: Counter<'queue' | 'outcome'>;
  /** One read of the backlog per scrape, shared by the two gauges that report it. */
  private backlogRead: Promise<LaneBacklog[] | undefined> | undefined;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly db: Database,
    @Optional() @Inject(JOBS_BACKLOG_SOURCE) private jobs?: JobsBacklogSource,
  ) {
    this.enabled = config.metrics.token !== undefined || config.metrics.port !== undefined;
    const registers = [this.registry];
    this.requestDuration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from a request read to its answer sent, by operation id and status class (its _count counts the requests).',
      labelNames: ['operation', 'status_class'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.webhookDeliveries = new Counter({
      name: 'webhook_deliveries_total',
      help: 'Webhook delivery attempts recorded, by outcome: delivered (2xx), retry (rescheduled), failed (for good).',
      labelNames: ['outcome'],
      registers,
    });
    for (const outcome of WEBHOOK_OUTCOMES) this.webhookDeliveries.inc({ outcome }, 0);
    this.jobAttempts = new Counter({
      name: 'jobs_attempts_total',
      help: 'Runs of background jobs, by queue and outcome (done, retry, failed, again, released, lost: its lease went elsewhere).',
      labelNames: ['queue', 'outcome'],
      registers,
    });
    if (!this.enabled) return;
    collectDefaultMetrics({ register: this.registry });
    if (db.dialect === 'mysql') this.addPoolGauges();
    this.addBacklogGauges();
  }

  /**
   * Where the job gauges read the backlog (JobRunner, as it is made): given here rather than
   * injected, since the runner's queues count their outcomes here.
   */
  reportJobs(source: JobsBacklogSource): void {
    this.jobs = source;
  }

  /** The Content-Type of `render()`'s text (the Prometheus text format 0.0.4). */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Every metric in the Prometheus text exposition format; the gauges read what they report now. */
  render(): Promise<string> {
    return this.registry.metrics();
  }

  /** One answered request (fastify's onResponse hook): one histogram observation, its labels made in advance. */
  observeRequest(labels: OperationLabels, statusCode: number, seconds: number): void {
    const statusClass = ((statusCode / 100) | 0) - 1;
    this.requestDuration.observe(labels[statusClass < 0 ? 0 : statusClass > 4 ? 4 : statusClass], seconds);
  }

  /** A webhook delivery attempt whose outcome was recorded (committed) by the delivery worker. */
  webhookDelivery(outcome: WebhookDeliveryOutcome): void {
    this.webhookDeliveries.inc({ outcome });
  }

  /** A job run whose outcome the jobs primitive recorded. */
  jobAttempt(queue: string, outcome: JobAttemptOutcome): void {
    this.jobAttempts.inc({ queue, outcome });
  }

  /**
   * The database pool (MariaDB/MySQL; SQLite has one connection and no pool), read at each scrape:
   * `pool` is `main`, or a cluster node's name. A pool that cannot be read has no series.
   */
  private addPoolGauges(): void {
    const gauge = (name: string, help: string, labelNames: string[], set: (gauge: Gauge, stats: PoolStats) => void) => {
      const metric: Gauge = new Gauge({
        name,
        help,
        labelNames,
        registers: [this.registry],
        collect: () => {
          metric.reset();
          for (const stats of this.db.poolStats()) set(metric, stats);
        },
      });
    };
    gauge(
      'db_pool_connections',
      'Connections of the database pool, by state: in_use (lent to a statement or transaction) or idle.',
      ['pool', 'state'],
      (metric, { pool, inUse, idle }) => {
        metric.set({ pool, state: 'in_use' }, inUse);
        metric.set({ pool, state: 'idle' }, idle);
      },
    );
    gauge(
      'db_pool_waiting_requests',
      'Requests for a database connection waiting because every connection of the pool is in use.',
      ['pool'],
      (metric, { pool, waiting }) => metric.set({ pool }, waiting),
    );
    gauge(
      'db_pool_max_connections',
      'The most connections the database pool opens.',
      ['pool'],
      (metric, { pool, limit }) => metric.set({ pool }, limit),
    );
  }

  /** Every job lane's backlog and the age of its oldest job, from the JobsBacklogSource at each scrape. */
  private addBacklogGauges(): void {
    const registers = [this.registry];
    const labels = (lane: LaneBacklog) => ({ queue: lane.queue, lane: lane.lane });
    const pending = new Gauge({
      name: 'jobs_pending',
      help: 'Background jobs waiting or running, by queue and lane.',
      labelNames: ['queue', 'lane'],
      registers,
      collect: async () => {
        const lanes = await this.backlog();
        pending.reset();
        for (const lane of lanes ?? []) pending.set(labels(lane), lane.pending);
      },
    });
    const bound = new Gauge({
      name: 'jobs_max_wait_seconds',
      help: "How long a queue's oldest due job may wait before /api/health says degraded (its documented bound).",
      labelNames: ['queue'],
      registers,
      collect: async () => {
        const lanes = await this.backlog();
        bound.reset();
        for (const lane of lanes ?? [])
          if (lane.maxWaitSeconds !== undefined) bound.set({ queue: lane.queue }, lane.maxWaitSeconds);
      },
    });
    const oldest = new Gauge({
      name: 'jobs_oldest_pending_seconds',
      help: 'How long the oldest job waiting or running in a lane has waited, in seconds (no series when there is none).',
      labelNames: ['queue', 'lane'],
      registers,
      collect: async () => {
        const lanes = await this.backlog();
        oldest.reset();
        for (const lane of lanes ?? []) {
          if (lane.oldestPendingSeconds !== null) oldest.set(labels(lane), lane.oldestPendingSeconds);
        }
      },
    });
  }

  /**
   * The backlog, read once for the gauges of one scrape (prom-client collects every metric at once);
   * a read that fails or takes longer than BACKLOG_TIMEOUT_MS leaves the job gauges out of that scrape.
   */
  private backlog(): Promise<LaneBacklog[] | undefined> {
    this.backlogRead ??= this.readBacklog().finally(() => (this.backlogRead = undefined));
    return this.backlogRead;
  }

  private async readBacklog(): Promise<LaneBacklog[] | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${BACKLOG_TIMEOUT_MS} ms`)), BACKLOG_TIMEOUT_MS);
    });
    try {
      if (!this.jobs) return undefined;
      return await Promise.race([this.jobs.backlog(), timeout]);
    } catch (error) {
      this.logger.warn(`reading the jobs' backlog failed: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }
}
