import { randomUUID } from 'node:crypto';
import type { Job, JobContext, JobHandler, JobOutcome, LaneLimits, QueueSettings } from '../src/common/jobs/job.js';
import { JobRunner } from '../src/common/jobs/job-runner.js';
import { Jobs, RECURRING } from '../src/common/jobs/jobs.js';
import { Database } from '../src/common/persistence/database.js';
import { createTestApp, type TestApp } from './support/test-app.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A queue of this test: its settings, and what its jobs do (the test's own work, not the primitive's). */
class TestQueue implements JobHandler {
  readonly settings: QueueSettings;
  constructor(
    settings: Partial<QueueSettings> & { name: string },
    readonly work: (job: Job, context: JobContext) => Promise<JobOutcome>,
    private readonly limits?: LaneLimits,
  ) {
    this.settings = {
      enabled: true,
      concurrency: 10,
      leaseMs: 5_000,
      pollMs: 20,
      retry: { name: 'test', delays: [1] },
      maxWaitSeconds: 60,
      ...settings,
    };
    if (limits) this.laneLimits = async (lanes) => new Map(lanes.map((lane) => [lane, limits]));
  }
  laneLimits?: (lanes: readonly string[]) => Promise<Map<string, LaneLimits>>;
  run(job: Job, context: JobContext): Promise<JobOutcome> {
    return this.work(job, context);
  }
}

/**
 * The jobs primitive (src/common/jobs) on a real database, with queues of the test's own: two
 * runners over one database stand for two instances. Imports, erasures and webhooks are its
 * queues in production; their specs run them through it too (kill -9 takeovers included).
 */
describe('background jobs: claimed under a lease, fenced, retried, given back', () => {
  let t: TestApp;
  let db: Database;
  const runners: JobRunner[] = [];

  beforeAll(async () => {
    t = await createTestApp({
      config: { imports: { runner: false }, erasures: { runner: false }, webhooks: { worker: false } },
    });
    db = t.app.get(Database);
  });
  afterEach(async () => {
    for (const runner of runners.splice(0)) await runner.stop(0);
  });
  afterAll(() => t.close());

  /** A runner of these queues: an instance of its own, started. */
  const instance = (...queues: JobHandler[]) => {
    const runner = new JobRunner(db, new Jobs(db), queues);
    runners.push(runner);
    runner.start();
    return runner;
  };
  const enqueue = (...jobs: Parameters<Jobs['enqueue']>[1]) => t.app.get(Jobs).enqueue(undefined, jobs);
  const left = async (queue: string) =>
    Number((await db.query<{ n: number | string }>('SELECT COUNT(*) AS n FROM jobs WHERE queue = ?', [queue]))[0].n);
  const until = async (what: string, done: () => Promise<boolean> | boolean, timeoutMs = 20_000) => {
    for (const deadline = Date.now() + timeoutMs; !(await done()); await sleep(20)) {
      if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    }
  };

  it("runs every job once across two instances, never more of a lane at once than the lane's concurrency", async () => {
    const queue = `lanes-${randomUUID().slice(0, 8)}`;
    const ran: number[] = [];
    let inFlight = 0;
    let most = 0;
    const handler = new TestQueue(
      { name: queue },
      async (job) => {
        most = Math.max(most, ++inFlight);
        await sleep(30);
        inFlight--;
        ran.push(job.subjectId!);
        return { status: 'done' };
      },
      { concurrency: 2 },
    );
    await enqueue(...Array.from({ length: 20 }, (_, i) => ({ queue, lane: 'one-endpoint', subjectId: i })));
    instance(handler);
    instance(handler);
    await until('every job ran', async () => (await left(queue)) === 0);
    expect(ran.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(most).toBe(2);
  });

  it("spaces a lane's starts by its rate, across instances", async () => {
    const queue = `rate-${randomUUID().slice(0, 8)}`;
    const starts: number[] = [];
    const handler = new TestQueue(
      { name: queue },
      async () => {
        starts.push(Date.now());
        return { status: 'done' };
      },
      { concurrency: 16, ratePerSecond: 10 },
    );
    await enqueue(...Array.from({ length: 15 }, () => ({ queue, lane: 'slow-receiver' })));
    instance(handler);
    instance(handler);
    await until('every job ran', async () => (await left(queue)) === 0);
    starts.sort((a, b) => a - b);
    // 10 a second: each start has its slot, 100 ms after the one before (a timer may fire a little
    // late, so one second may see one more).
    const inSecondFrom = (at: number) => starts.filter((other) => other >= at && other < at + 1_000).length;
    expect(Math.max(...starts.map(inSecondFrom))).toBeLessThanOrEqual(11);
    expect(starts[starts.length - 1] - starts[0]).toBeGreaterThanOrEqual(1_300);
  });

  it("retries on the queue's schedule, a 429's Retry-After first, and fails for good once it is spent", async () => {
    const queue = `retry-${randomUUID().slice(0, 8)}`;
    const attempts: number[] = [];
    const handler = new TestQueue(
      { name: queue, retry: { name: 'test', delays: [1] }, keepFailures: true },
      async () => {
        attempts.push(Date.now());
        return { status: 'retry', failure: { error: 'HTTP 429', statusCode: 429, retryAfter: '2' } };
      },
    );
    await enqueue({ queue, subjectId: 42, payload: { receiver: 'busy' } });
    instance(handler);
    await until('the job failed for good', async () => (await left(queue)) === 0);
    expect(attempts).toHaveLength(2);
    expect(attempts[1] - attempts[0]).toBeGreaterThanOrEqual(1_900);
    const failed = await db.query<{ queue: string; payload: string; exception: string }>(
      'SELECT queue, payload, exception FROM failed_jobs WHERE queue = ?',
      [queue],
    );
    expect(failed).toHaveLength(1);
    expect(JSON.parse(failed[0].payload)).toMatchObject({ subject_id: 42, payload: { receiver: 'busy' } });
    expect(failed[0].exception).toBe('HTTP 429');
  });

  it('fences every step: a run whose lease was taken over writes nothing more, and its end is not recorded', async () => {
    const queue = `fence-${randomUUID().slice(0, 8)}`;
    const marker = (step: string) => `${queue}-${step}`;
    let taken!: () => void;
    const takenOver = new Promise<void>((resolve) => (taken = resolve));
    const step = (context: JobContext, name: string) =>
      db.transaction(async (sql) => {
        await context.fence(sql);
        await sql.run(
          'INSERT INTO failed_jobs (uuid, connection, queue, payload, exception, failed_at) VALUES (?, ?, ?, ?, ?, ?)',
          [marker(name), 'test', queue, '{}', '', new Date()],
        );
      });
    const handler = new TestQueue({ name: queue }, async (_job, context) => {
      await step(context, 'first');
      await takenOver;
      await step(context, 'second');
      return { status: 'done' };
    });
    await enqueue({ queue });
    instance(handler);
    await until(
      'the first step',
      async () => (await db.query('SELECT 1 FROM failed_jobs WHERE uuid = ?', [marker('first')])).length === 1,
    );
    // Another instance takes the job over (its lease ran out while this one stalled).
    await db.run('UPDATE jobs SET lease_owner = ? WHERE queue = ?', ['another-instance', queue]);
    taken();
    await sleep(300);
    expect(await db.query('SELECT 1 FROM failed_jobs WHERE uuid = ?', [marker('second')])).toEqual([]);
    const [job] = await db.query<{ lease_owner: string }>('SELECT lease_owner FROM jobs WHERE queue = ?', [queue]);
    expect(job.lease_owner).toBe('another-instance');
  });

  it('gives a job back when its instance stops, without spending an attempt, and another instance resumes it', async () => {
    const queue = `stop-${randomUUID().slice(0, 8)}`;
    const progress: string[] = [];
    const handler = new TestQueue({ name: queue }, async (job, context) => {
      const done = new Set(progress);
      for (const part of ['a', 'b', 'c', 'd']) {
        if (done.has(part)) continue;
        if (context.shouldStop()) return { status: 'released', note: 'stopped' };
        progress.push(part);
        await sleep(100);
      }
      return { status: 'done', note: `${job.attempts} attempts` };
    });
    await enqueue({ queue });
    const first = instance(handler);
    await until('the job started', () => progress.length > 0);
    await first.stop();
    const [given] = await db.query<{ lease_owner: string | null; attempts: number | string }>(
      'SELECT lease_owner, attempts FROM jobs WHERE queue = ?',
      [queue],
    );
    expect(given).toMatchObject({ lease_owner: null });
    expect(Number(given.attempts)).toBe(0);
    expect(progress.length).toBeLessThan(4);
    const second = instance(handler);
    await until('the job ended', async () => (await left(queue)) === 0);
    expect(progress).toEqual(['a', 'b', 'c', 'd']);
    expect(second.outcomes.get(queue)?.get('done')).toBe(1);
  });

  it("reports each queue's backlog in /api/health, degraded while a queue's oldest job has waited past its bound", async () => {
    const health = async () => (await t.http.get('/api/health')).body.data;
    const idle = await health();
    expect(idle).toMatchObject({ status: 'ok' });
    expect(Object.keys(idle.jobs).sort()).toEqual([
      'campaign-run',
      'campaign-run-retention',
      'campaign-schedule',
      'customer-erasure',
      'customer-event-retention',
      'customer-import',
      'destination-delivery',
      'destination-file-retention',
      'event-retention',
      'webhook-delivery',
      'webhook-fanout',
      'webhook-retention',
    ]);
    // An import due 20 minutes ago that no instance took (its bound is 10 minutes).
    await enqueue({ queue: 'customer-import', subjectId: 0, runAt: Date.now() - 20 * 60_000 });
    await sleep(1_100); // the backlog is read at most once a second
    const late = await health();
    expect(late.status).toBe('degraded');
    expect(late.jobs['customer-import'].pending).toBe(1);
    expect(late.jobs['customer-import'].oldest_pending_seconds).toBeGreaterThanOrEqual(1_200);
    await db.run("DELETE FROM jobs WHERE queue = 'customer-import'");
    await sleep(1_100);
    expect(await health()).toMatchObject({ status: 'ok', jobs: { 'customer-import': { pending: 0 } } });
  });

  it('keeps one job of a recurring queue, however many instances start, and runs it again after its interval', async () => {
    const queue = `every-${randomUUID().slice(0, 8)}`;
    const runs: number[] = [];
    const handler = new TestQueue({ name: queue, everyMs: 200 }, async () => {
      runs.push(Date.now());
      return { status: 'done' };
    });
    instance(handler);
    instance(handler);
    await until('three runs', () => runs.length >= 3);
    const jobs = await db.query<{ unique_key: string }>('SELECT unique_key FROM jobs WHERE queue = ?', [queue]);
    expect(jobs).toEqual([{ unique_key: RECURRING }]);
    expect(runs[2] - runs[1]).toBeGreaterThanOrEqual(190);
  });
});
