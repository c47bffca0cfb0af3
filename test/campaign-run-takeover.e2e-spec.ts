import type { ChildProcess } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { JobRunner } from '../src/common/jobs/job-runner.js';
import { HELD, Jobs } from '../src/common/jobs/jobs.js';
import { Database } from '../src/common/persistence/database.js';
import { DESTINATION_QUEUE } from '../src/modules/destination/delivery/delivery-batch.js';
import { planLane, RUN_QUEUE } from '../src/modules/runs/run-queue-name.js';
import { childInstance, killChildInstances } from './imports-support/imports.js';
import { login } from './support/auth.js';
import { newWorkspace, type Workspace } from './support/campaign-fixtures.js';
import { eventually, Receiver, sleep, startDeliveryApp, type Any } from './support/destination-fixtures.js';
import {
  launch,
  linkWebhook,
  newCustomers,
  recipientsOf,
  recordsOf,
  runnableCampaign,
  runWhen,
  unique,
  VARIANTS_AND_CONTROL,
} from './support/run-fixtures.js';
import type { TestApp } from './support/test-app.js';

const MEMBERS = 300;
const BATCH = 10;
/** Requests answered before the receiver stops answering: the run is well under way when its instance dies. */
const ANSWERED = 6;
/** The lane's concurrency: this many requests are in flight (unanswered) when the instance is killed. */
const CONCURRENCY = 2;
/** Short leases, so that the run and its batches are taken over soon after the kill. */
const QUICK = {
  runs: { runner: true, leaseMs: 1_500, pollMs: 50 },
  destinations: { worker: true, leaseMs: 1_500, pollMs: 50, retrySchedule: [1, 1, 1] },
};

/**
 * A restart in the middle of a run (docs/campaign-runs.md#delivery-exactly-once-where-it-counts): a run of a few hundred
 * members delivers to a local receiver from another instance of the service (a child process);
 * the receiver answers the first requests, then holds those in flight, and the instance is killed
 * (SIGKILL). A new instance takes the run and its batches over once their leases have run out and
 * completes it: every member of a group that receives is delivered, none is skipped, the run's
 * counts add up, and the only records received twice are those of the requests in flight at the
 * kill, sent again with the same message ids.
 */
describe('campaign run taken over after kill -9', () => {
  let t: TestApp;
  let receiver: Receiver;
  let w: Workspace;
  let db: Database;

  beforeAll(async () => {
    receiver = await new Receiver().start();
    // This process only answers the API and reads the database: the child instances run the run.
    t = await startDeliveryApp({ config: { runs: { runner: false } }, destinations: { worker: false } });
    w = await newWorkspace(t, await login(t));
    db = t.app.get(Database);
  });
  afterEach(killChildInstances);
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  const child = () => childInstance(t, { runner: false }, {}, QUICK);

  it('completes on another instance: each member delivered, repeats only of the batches in flight, same ids', async () => {
    const api = w.manager;
    const domain = `${unique()}.example`;
    const ids = await newCustomers(api, MEMBERS, domain);
    const { campaign } = await runnableCampaign(api, domain, VARIANTS_AND_CONTROL);
    const path = `/takeover-${unique()}`;
    const held: ServerResponse[] = [];
    const ok = (_req: IncomingMessage, res: ServerResponse) => res.writeHead(200).end('ok');
    const hold = (_req: IncomingMessage, res: ServerResponse) => void held.push(res);
    // The first requests are answered, the next ones (the lane's concurrency) never: then the kill.
    // Whatever comes after (the new instance's) is answered 200.
    receiver.answer(path, ...Array<typeof ok>(ANSWERED).fill(ok), ...Array<typeof hold>(CONCURRENCY).fill(hold));
    const { destination } = await linkWebhook(api, campaign.id as number, receiver.url(path), {
      batch_size: BATCH,
      concurrency: CONCURRENCY,
      rate_per_second: 1_000,
      timeout_ms: 60_000,
    });

    const first: ChildProcess = await child();
    const run = await launch(api, campaign.id as number);
    await receiver.until(path, ANSWERED + CONCURRENCY, 20_000);
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));

    // Killed mid-run: running, some recipients delivered, the rest still pending (none skipped or failed).
    const runId = run.id as number;
    const dead = await statuses(runId);
    expect(await runStatus(runId)).toBe('running');
    expect(dead.delivered).toBeGreaterThan(0);
    expect(dead.delivered).toBeLessThanOrEqual(ANSWERED * BATCH);
    expect(dead.pending).toBeGreaterThan(0);
    expect(Object.keys(dead).sort()).toEqual(['delivered', 'pending']);

    // Another instance takes the run and its batches over once their leases have run out.
    await child();
    const ended = await runWhen(api, runId, ['completed', 'failed', 'cancelled'], 60_000);
    for (const res of held) res.destroy();

    // The run: completed, its counts add up.
    expect(ended).toMatchObject({ status: 'completed', error: null });
    const counts = ended.counts as Any;
    const control = counts.groups.find((g: Any) => g.type === 'control').members as number;
    const receiving = MEMBERS - control;
    expect(counts).toMatchObject({
      audience: MEMBERS,
      eligible: MEMBERS,
      excluded: { inactive: 0, suppressed: 0, invalid: 0, capped: 0 },
      control,
    });
    expect(counts.groups.reduce((sum: number, g: Any) => sum + (g.members as number), 0)).toBe(MEMBERS);
    expect(counts.destinations).toEqual([
      expect.objectContaining({
        add: receiving,
        update: 0,
        remove: 0,
        unchanged: 0,
        delivered: receiving,
        skipped: 0,
        rejected: 0,
        failed: 0,
        pending: 0,
      }),
    ]);

    // Every member of a receiving group has one recipient row, delivered; the control group none.
    const members = await db.query<{ customer_id: number | string; type: string }>(
      `SELECT m.customer_id, g.type FROM campaign_run_members m JOIN treatment_groups g ON g.id = m.treatment_group_id
        WHERE m.run_id = ? AND m.excluded IS NULL`,
      [runId],
    );
    expect(members).toHaveLength(MEMBERS);
    const expected = members
      .filter((m) => m.type !== 'control')
      .map((m) => Number(m.customer_id))
      .sort((a, b) => a - b);
    expect(expected).toHaveLength(receiving);
    const recipients = await recipientsOf(api, runId);
    expect(recipients.map((r) => r.customer_id as number).sort((a, b) => a - b)).toEqual(expected);
    expect(recipients.every((r) => r.status === 'delivered' && r.reason === null)).toBe(true);
    expect(new Set(recipients.map((r) => r.message_id)).size).toBe(receiving);
    expect(expected.every((id) => ids.includes(id))).toBe(true);

    // What the receiver got: each recipient's record under its message id, no other record; a
    // record received twice was in a request left unanswered at the kill, and came again the same.
    const requests = receiver.on(path);
    const records = recordsOf(requests, destination.signing_secret as string);
    const byMessage = new Map<string, Any[]>();
    for (const record of records)
      byMessage.set(record.message_id, [...(byMessage.get(record.message_id) ?? []), record]);
    const idOf = new Map(recipients.map((r) => [r.message_id as string, r.customer_id as number]));
    expect(new Set(byMessage.keys())).toEqual(new Set(idOf.keys()));
    for (const [message, copies] of byMessage) {
      expect(copies.every((copy) => copy.customer_id === idOf.get(message))).toBe(true);
      expect(copies.every((copy) => JSON.stringify(copy) === JSON.stringify(copies[0]))).toBe(true);
    }
    const inFlight = new Set(
      recordsOf(requests.slice(ANSWERED, ANSWERED + CONCURRENCY), destination.signing_secret as string).map(
        (r) => r.message_id as string,
      ),
    );
    expect(inFlight.size).toBe(CONCURRENCY * BATCH);
    // Left pending by the kill, those records went out again from the new instance: they, and only
    // they, were received twice.
    const repeated = [...byMessage].filter(([, copies]) => copies.length > 1).map(([message]) => message);
    expect(new Set(repeated)).toEqual(inFlight);
    expect(Math.max(...[...byMessage.values()].map((copies) => copies.length))).toBe(2);
    expect(records.length).toBe(receiving + inFlight.size);
  });

  it("a job whose outcome a crash lost does not run its successor's phase beside it", async () => {
    const api = w.manager;
    const domain = `${unique()}.example`;
    await newCustomers(api, 40, domain);
    const { campaign } = await runnableCampaign(api, domain, VARIANTS_AND_CONTROL);
    const path = `/stale-${unique()}`;
    const { destination } = await linkWebhook(api, campaign.id as number, receiver.url(path), { batch_size: 10 });
    const run = await launch(api, campaign.id as number);
    const runId = run.id as number;
    // This process runs the run's jobs by hand, one at a time.
    const runner = t.app.get(JobRunner);
    const [launched] = await db.query<{ lane: string; tenant_id: number | string; payload: unknown }>(
      'SELECT lane, tenant_id, payload FROM jobs WHERE queue = ? AND subject_id = ?',
      [RUN_QUEUE, runId],
    );
    // The launch's job records the members, then hands the run to a job of the tenant's plan lane.
    expect(await runner.runOnce(RUN_QUEUE)).toEqual({ status: 'done', note: 'planning next' });
    // A crash between that hand-over's commit and the settlement of the job's outcome leaves the job
    // as it was queued, due again once its lease has run out: here it is back, and the only one due.
    await t.app.get(Jobs).enqueue(undefined, [
      {
        queue: RUN_QUEUE,
        lane: launched.lane,
        tenantId: Number(launched.tenant_id),
        subjectId: runId,
        payload: typeof launched.payload === 'string' ? JSON.parse(launched.payload) : (launched.payload ?? undefined),
      },
    ]);
    const planning = [HELD, RUN_QUEUE, runId, planLane(w.tenantId)];
    await db.run('UPDATE jobs SET run_at = ? WHERE queue = ? AND subject_id = ? AND lane = ?', planning);
    expect(await runner.runOnce(RUN_QUEUE)).toMatchObject({ status: 'done' });
    // It left the run to its successor: nothing planned outside the plan lane.
    const [left] = await db.query<{ phase: string }>('SELECT phase FROM campaign_runs WHERE id = ?', [runId]);
    expect(left.phase).toBe('plan');
    expect(await statuses(runId)).toEqual({});

    // The successor plans; the run delivers and completes, each record once.
    await db.run('UPDATE jobs SET run_at = ? WHERE queue = ? AND subject_id = ? AND lane = ?', [
      Date.now(),
      ...planning.slice(1),
    ]);
    await eventually(async () => {
      await runner.runOnce(RUN_QUEUE);
      while ((await runner.runOnce(DESTINATION_QUEUE)) !== undefined);
      const [row] = await db.query<{ phase: string }>('SELECT phase FROM campaign_runs WHERE id = ?', [runId]);
      if (row.phase !== 'done') await sleep(100);
      return row.phase === 'done' ? true : undefined;
    }, 30_000);
    const ended = await runWhen(api, runId);
    expect(ended.status).toBe('completed');
    const receiving = (ended.counts as Any).destinations[0].add as number;
    expect(ended.counts).toMatchObject({ destinations: [{ delivered: receiving, pending: 0 }] });
    const recipients = await recipientsOf(api, runId);
    expect(recipients).toHaveLength(receiving);
    expect(new Set(recipients.map((r) => r.customer_id)).size).toBe(receiving);
    const records = recordsOf(receiver.on(path), destination.signing_secret as string);
    expect(records.map((r) => r.message_id).sort()).toEqual(recipients.map((r) => r.message_id).sort());
    expect(await db.query('SELECT id FROM jobs WHERE queue = ? AND subject_id = ?', [RUN_QUEUE, runId])).toEqual([]);
  });

  /** The run's recipients by status, read from the database. */
  async function statuses(runId: number): Promise<Record<string, number>> {
    const rows = await db.query<{ status: string; n: number | string }>(
      'SELECT status, COUNT(*) AS n FROM campaign_run_recipients WHERE run_id = ? GROUP BY status',
      [runId],
    );
    return Object.fromEntries(rows.map((row) => [row.status, Number(row.n)]));
  }

  async function runStatus(runId: number): Promise<string> {
    return eventually(async () => {
      const [row] = await db.query<{ status: string }>('SELECT status FROM campaign_runs WHERE id = ?', [runId]);
      return row?.status;
    });
  }
});
