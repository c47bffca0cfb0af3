import { wholeSecondNow } from '../persistence/columns.js';
import type { Database, Sql, SqlValue } from '../persistence/database.js';
import { valuesTable } from '../persistence/values-table.js';
import type { JobHandler, Settled } from './job.js';

/**
 * Settles ended runs in one transaction, for the jobs still leased to `owner` (a run whose lease
 * went elsewhere is not this instance's to record): each queue records its runs (`settle`), then
 * each job ends (deleted), or is due again at its next run with its lease let go. A job that failed
 * for good in a queue that keeps failures leaves a `failed_jobs` row. Answers the runs it settled.
 */
export function settleJobs(
  db: Database,
  batch: readonly Settled[],
  owner: string,
  handlerOf: (queue: string) => JobHandler,
): Promise<Settled[]> {
  return db.transaction(async (sql) => {
    const ids = batch.map((settled) => settled.job.id);
    const ours = new Set(
      (
        await sql.query<{ id: number | string }>(
          `SELECT id FROM jobs WHERE id IN (${ids.map(() => '?').join(', ')}) AND lease_owner = ?${
            sql.dialect === 'mysql' ? ' FOR UPDATE' : ''
          }`,
          [...ids, owner],
        )
      ).map((row) => Number(row.id)),
    );
    const kept = batch.filter((settled) => ours.has(settled.job.id));
    const queues = new Set(kept.map((settled) => settled.job.queue));
    for (const queue of queues) {
      const settle = handlerOf(queue).settle?.bind(handlerOf(queue));
      if (settle)
        await settle(
          sql,
          kept.filter((settled) => settled.job.queue === queue),
        );
    }
    const ended = kept.filter((settled) => settled.nextRunAt === undefined).map((settled) => settled.job.id);
    if (ended.length) await sql.run(`DELETE FROM jobs WHERE id IN (${ended.map(() => '?').join(', ')})`, ended);
    await reschedule(
      sql,
      kept.filter((settled) => settled.nextRunAt !== undefined),
      (queue) => handlerOf(queue).settings.everyMs !== undefined,
    );
    await keepFailures(
      sql,
      kept.filter((settled) => settled.final === 'failed' && handlerOf(settled.job.queue).settings.keepFailures),
      db.dialect,
    );
    return kept;
  });
}

/** Due again at its next run, its lease let go; `again` and `released` spend no attempt, a recurring job starts afresh. */
async function reschedule(sql: Sql, settled: readonly Settled[], recurring: (queue: string) => boolean): Promise<void> {
  if (settled.length === 0) return;
  const now = Date.now();
  const rows: SqlValue[][] = settled.map(({ job, outcome, final, nextRunAt }) => {
    const spent = final === 'again' || final === 'released' ? job.attempts - 1 : job.attempts;
    const fresh = recurring(job.queue) && (final === 'done' || final === 'failed');
    const error =
      outcome.status === 'retry' ? outcome.failure.error : outcome.status === 'failed' ? outcome.error : null;
    return [job.id, nextRunAt!, fresh ? 0 : Math.max(0, spent), error];
  });
  const v = valuesTable(sql.dialect, ['k', 'at', 'attempts', 'err'], rows, 'v');
  const set = (t: string) =>
    `${t}run_at = v.at, ${t}attempts = v.attempts, ${t}last_error = v.err, ${t}lease_owner = NULL, ${t}lease_expires_at = NULL, ${t}updated_at = ?`;
  if (sql.dialect === 'mysql') {
    await sql.run(`UPDATE jobs j JOIN ${v.sql} ON j.id = v.k SET ${set('j.')}`, [...v.params, now]);
  } else {
    await sql.run(`UPDATE jobs SET ${set('')} FROM ${v.sql} WHERE jobs.id = v.k`, [now, ...v.params]);
  }
}

/** `failed_jobs` rows of jobs that failed for good: their queue, payload and last error. */
async function keepFailures(sql: Sql, settled: readonly Settled[], connection: string): Promise<void> {
  if (settled.length === 0) return;
  const failedAt = wholeSecondNow();
  await sql.insertRows(
    'failed_jobs',
    ['uuid', 'connection', 'queue', 'payload', 'exception', 'failed_at'],
    settled.map(({ job, outcome }) => [
      `job-${job.id}-${job.attempts}`,
      connection,
      job.queue,
      JSON.stringify({
        job_id: job.id,
        tenant_id: job.tenantId,
        subject_id: job.subjectId,
        lane: job.lane,
        payload: job.payload ?? null,
      }),
      outcome.status === 'failed' ? outcome.error : outcome.status === 'retry' ? outcome.failure.error : '',
      failedAt,
    ]),
  );
}
