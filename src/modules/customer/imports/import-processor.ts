import { Inject, Injectable, Logger } from '@nestjs/common';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { APP_CONFIG, type AppConfig } from '../../../common/config/app-config.js';
import { BULK_WRITE } from '../../../common/events/change-feed.js';
import { LeaseLost, type JobContext, type JobOutcome } from '../../../common/jobs/job.js';
import { isDatabaseUnavailable } from '../../../common/persistence/database-errors.js';
import type { Sql } from '../../../common/persistence/sql.js';
import { slices } from '../../../common/persistence/rows-insert.js';
import { Tables } from '../../../common/persistence/tables.js';
import type { CustomerImport } from '../entities/customer-import.entity.js';
import { CustomerRules } from '../customer-rules.js';
import { csvRows } from './csv-rows.js';
import { headerColumns } from './import-file.js';
import { ImportJobs, jobAuth, type ImportCounts } from './import-jobs.js';
import { ImportRows, type ImportRow } from './import-rows.js';

/** An import's error rows, as `customer_import_errors` stores them. */
const ERROR_COLUMNS = ['tenant_id', 'import_id', 'line', 'field', 'message', 'created_at', 'updated_at'];

/** Chunks written at once (process), and the lanes of a job: one more, for the chunk that is starting. */
const CHUNKS_IN_FLIGHT = 3;
const LANES = CHUNKS_IN_FLIGHT + 1;

/** A chunk being written: the lane it holds, whether it has ended, and its end. */
interface ChunkInFlight {
  lane: number;
  over: boolean;
  ended: Promise<void>;
}

/** Where a chunk goes: the job's position once the chunks before it commit, its lane, and the chunk in flight before it. */
interface ChunkTurn {
  position: number;
  lane: number;
  before?: ChunkInFlight;
}

/** The job may not go on here: it was cancelled, or its progress moved under another instance. */
class JobTakenAway extends Error {}

/** The chunk before had not committed when this one was fenced: this one runs again once it has ended. */
class NotYourTurn extends Error {}

/**
 * Runs one claimed job from where its last committed chunk ended: reads the file again from the
 * start (skipping the rows already done, which also rebuilds the set of keys seen), then commits
 * each chunk of rows together with the job's progress, counts and the chunk's errors in one
 * transaction, fenced by the lease. Whatever stops it, the job's state is that of its last chunk.
 */
@Injectable()
export class ImportProcessor {
  private readonly logger = new Logger('CustomerImports');

  constructor(
    private readonly tables: Tables,
    private readonly jobs: ImportJobs,
    private readonly rules: CustomerRules,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  filePath(job: CustomerImport): string {
    return join(this.config.storageDir, job.file_path);
  }

  async run(job: CustomerImport, context: JobContext): Promise<JobOutcome> {
    try {
      await this.step(job, context, async (sql) => {
        await this.jobs.start(sql, job);
        await this.jobs.openLanes(sql, job, LANES);
      });
      await this.process(job, context);
      if (context.shouldStop()) {
        await this.step(job, context, async () => undefined); // stopping, or no longer ours (LeaseLost)?
        return { status: 'released', note: 'stopped' };
      }
      await this.step(job, context, (sql) => this.jobs.end(sql, job, 'completed', { from: ['running'] }));
      await this.removeFile(job);
      return { status: 'done', note: 'completed' };
    } catch (error) {
      if (error instanceof LeaseLost || error instanceof JobTakenAway) {
        const now = await this.jobs.read(job.id);
        if (now && this.jobs.isFinished(now.status)) await this.removeFile(job);
        return { status: 'released', note: 'taken-away' };
      }
      // Nothing to record while the database is away: the runner leaves the job to its lease.
      if (isDatabaseUnavailable(error)) throw error;
      this.logger.error(`import ${job.id} failed: ${error instanceof Error ? error.message : String(error)}`);
      await this.step(job, context, (sql) => this.jobs.fail(sql, job, error));
      await this.removeFile(job);
      return { status: 'failed', error: error instanceof Error ? error.message : String(error) };
    }
  }

  /** One transaction of the job's own bookkeeping, fenced on its lease. */
  private step(job: CustomerImport, context: JobContext, work: (sql: Sql) => Promise<unknown>): Promise<unknown> {
    return this.tables.writeWithBookkeeping(jobAuth(job), async (_tx, sql) => {
      await context.fence(sql);
      return work(sql);
    });
  }

  /**
   * Reads and checks the next chunk while the ones before are being written, three at a time: chunk k
   * writes its customers while chunks k-2 and k-1 end (their errors, progress, events and commits), so
   * that the service and the database work at once. Chunk k holds lane k mod 4 of the job from its
   * start and, before its progress, waits for the lane of chunk k-1, which that chunk holds until it
   * commits: the commits go in file order, each fenced at the position the one before reached, and
   * every wait between two chunks is a lock the database sees (it resolves a deadlock by running one
   * again). The service itself only waits for the oldest chunk in flight to end before it starts
   * another, so it never holds a chunk back for one the database holds back.
   */
  private async process(job: CustomerImport, context: JobContext): Promise<void> {
    const { chunkRows } = this.config.imports;
    let reader: ImportRows | undefined;
    let skip = job.processed_rows;
    let chunk: ImportRow[] = [];
    let position = job.processed_rows;
    let index = 0;
    const writing: ChunkInFlight[] = [];
    const write = async (rows: ImportRow[]): Promise<boolean> => {
      if (writing.length === CHUNKS_IN_FLIGHT) await writing.shift()!.ended;
      if (context.shouldStop()) return false;
      const turn: ChunkTurn = { position, lane: index % LANES, before: writing[writing.length - 1] };
      const inFlight: ChunkInFlight = { lane: turn.lane, over: false, ended: Promise.resolve() };
      inFlight.ended = this.commit(job, context, rows, turn).finally(() => (inFlight.over = true));
      inFlight.ended.catch(() => undefined); // awaited in order, by the next write or below
      writing.push(inFlight);
      position += rows.length;
      index++;
      return true;
    };
    try {
      for await (const row of csvRows(createReadStream(this.filePath(job), { highWaterMark: 64 * 1024 }))) {
        if (!reader) {
          if ('broken' in row) throw new Error('The header row of a stored import is not valid CSV.');
          reader = new ImportRows(headerColumns(row.cells));
          continue;
        }
        const read = reader.read(row);
        if (skip > 0) {
          skip--;
          continue;
        }
        chunk.push(read);
        if (chunk.length >= chunkRows) {
          if (!(await write(chunk))) return;
          chunk = [];
        }
      }
      if (chunk.length) await write(chunk);
      // In order: a chunk after one that failed fails its fence, and the first failure is the one to report.
      while (writing.length) await writing.shift()!.ended;
    } finally {
      await Promise.allSettled(writing.map((inFlight) => inFlight.ended));
    }
  }

  /**
   * One chunk: the customers (through the customer rules, recorded without an activity entry each:
   * the job has one; a row with a suppressed value fails, and so do creates beyond the plan's cap), the
   * job's progress and counts, and the chunk's errors, in one transaction. When the chunk before
   * has not committed by the time this one is fenced (the database ran it again after a conflict),
   * this one rolls back, waits for it to end, and runs again.
   */
  private async commit(job: CustomerImport, context: JobContext, chunk: ImportRow[], turn: ChunkTurn): Promise<void> {
    for (;;) {
      try {
        return await this.commitOnce(job, context, chunk, turn);
      } catch (error) {
        if (!(error instanceof NotYourTurn)) throw error;
        await turn.before!.ended.catch(() => undefined);
        turn.before = undefined; // it has ended: a fence that still fails means the job is not ours to go on with
      }
    }
  }

  private async commitOnce(
    job: CustomerImport,
    context: JobContext,
    chunk: ImportRow[],
    turn: ChunkTurn,
  ): Promise<void> {
    const writes = chunk.filter((row) => row.upsert);
    const counts = await this.tables.writeWithBookkeeping(
      jobAuth(job),
      async (tx, bookkeeping) => {
        await this.jobs.holdLane(bookkeeping, job, turn.lane);
        const outcomes = await this.rules.upsert(
          tx,
          bookkeeping,
          writes.map((row) => row.upsert!),
          { log: false },
        );
        const counts: ImportCounts = { created: 0, updated: 0, unchanged: 0, failed: 0 };
        const errors: [number, string, string][] = [];
        let w = 0;
        for (const row of chunk) {
          const outcome = row.upsert ? outcomes[w++] : undefined;
          const fieldErrors = outcome?.status === 'failed' ? outcome.errors : row.errors;
          if (fieldErrors) {
            counts.failed++;
            for (const [field, messages] of Object.entries(fieldErrors)) {
              for (const message of messages) errors.push([row.line, field, message]);
            }
          } else counts[outcome!.status as keyof ImportCounts]++;
        }
        // The chunk before holds its lane until it commits: after it, the job's row is free and at its position.
        if (turn.before) await this.jobs.holdLane(bookkeeping, job, turn.before.lane);
        await context.fence(bookkeeping);
        if (!(await this.jobs.advance(bookkeeping, job, turn.position, chunk.length, counts))) {
          throw turn.before && !turn.before.over ? new NotYourTurn() : new JobTakenAway();
        }
        await this.insertErrors(bookkeeping, job, errors);
        return counts;
      },
      BULK_WRITE,
    );
    job.processed_rows += chunk.length;
    for (const [column, n] of Object.entries(counts)) job[column as keyof ImportCounts] += n;
    // SQLite answers synchronously: without a turn of the event loop, a job would starve every request.
    await new Promise((resolve) => setImmediate(resolve));
  }

  private async insertErrors(sql: Sql, job: CustomerImport, errors: [number, string, string][]): Promise<void> {
    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    const rows = errors.map(([line, field, message]) => [job.tenant_id, job.id, line, field, message, now, now]);
    for (const slice of slices(rows, 1000)) await sql.insertRows('customer_import_errors', ERROR_COLUMNS, slice);
  }

  async removeFile(job: CustomerImport): Promise<void> {
    await rm(this.filePath(job), { force: true }).catch(() => undefined);
  }
}
