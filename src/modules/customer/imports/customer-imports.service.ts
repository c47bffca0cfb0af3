import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { AuthContext } from '../../../common/auth/auth-context.js';
import { APP_CONFIG, type AppConfig } from '../../../common/config/app-config.js';
import { ApiException, RecordNotFound } from '../../../common/http/api-exception.js';
import { Page } from '../../../common/http/page.js';
import { pageRequest } from '../../../common/persistence/keyset.js';
import type { ListQueryDto } from '../../../common/resources/list-query.dto.js';
import { quote } from '../../../common/persistence/table-gateway.js';
import { Tables } from '../../../common/persistence/tables.js';
import {
  toCustomerImportErrorResponse,
  toCustomerImportResponse,
  type CustomerImportErrorResponse,
  type CustomerImportResponse,
} from '../dto/customer-import.dto.js';
import { CustomerImport, CustomerImportError } from '../entities/customer-import.entity.js';
import { tooLarge, UploadInspector } from './import-file.js';
import { ImportJobs } from './import-jobs.js';
import { ImportProcessor } from './import-processor.js';

/** The import API: upload (a queued job), list, read, errors, cancel. The import queue does the rest (ImportQueue). */
@Injectable()
export class CustomerImportsService {
  constructor(
    private readonly tables: Tables,
    private readonly jobs: ImportJobs,
    private readonly processor: ImportProcessor,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Streams the body to STORAGE_DIR/imports/<uuid>.csv, checking the header as soon as it is in
   * (422) and the size all along (413), then queues the job. Nothing is kept of a refused upload.
   */
  async upload(
    auth: AuthContext,
    body: Readable | undefined,
    fileName: string | undefined,
    declaredBytes: number | undefined,
  ): Promise<CustomerImportResponse> {
    const inspector = new UploadInspector(this.config.imports.maxBytes);
    if (declaredBytes !== undefined && declaredBytes > this.config.imports.maxBytes) {
      throw tooLarge(this.config.imports.maxBytes);
    }
    const batchUuid = randomUUID();
    const filePath = `imports/${batchUuid}.csv`;
    const target = join(this.config.storageDir, filePath);
    await mkdir(dirname(target), { recursive: true });
    try {
      await receive(body, createWriteStream(target, { flags: 'wx' }), (chunk) => inspector.take(chunk));
      inspector.finish();
    } catch (error) {
      await rm(target, { force: true });
      throw error;
    }
    const job = await this.jobs.create(auth, {
      batch_uuid: batchUuid,
      file_name: fileName ?? null,
      file_path: filePath,
      file_bytes: inspector.bytes,
      total_rows: inspector.rows,
    });
    return toCustomerImportResponse(job);
  }

  async list(auth: AuthContext, query: ListQueryDto): Promise<Page<CustomerImportResponse>> {
    const { rows, meta } = await this.tables
      .read(auth)
      .table(CustomerImport)
      .page(pageRequest(query, { created_at: 'date' }), [], false);
    return new Page(rows.map(toCustomerImportResponse), meta);
  }

  async get(auth: AuthContext, id: number): Promise<CustomerImportResponse> {
    return toCustomerImportResponse(await this.find(auth, id));
  }

  /** A job's failed rows, in file order by default. */
  async errors(auth: AuthContext, id: number, query: ListQueryDto): Promise<Page<CustomerImportErrorResponse>> {
    await this.find(auth, id);
    const table = this.tables.read(auth).table(CustomerImportError);
    const { rows, meta } = await table.page(
      pageRequest({ ...query, sort: query.sort ?? 'id' }, {}),
      [{ sql: `${quote(table.spec.table)}.import_id = ?`, params: [id] }],
      true,
    );
    return new Page(rows.map(toCustomerImportErrorResponse), meta);
  }

  /**
   * Cancels a queued or running job: it stops after the chunk in progress (whose commit then
   * fails its fence), keeping what was committed. Cancelling a cancelled job changes nothing;
   * a job that has completed or failed answers 409.
   */
  async cancel(auth: AuthContext, id: number): Promise<CustomerImportResponse> {
    const job = await this.find(auth, id);
    if (job.status === 'completed' || job.status === 'failed') {
      throw new ApiException(409, {
        message: `The import has already ${job.status === 'completed' ? 'completed' : 'failed'}.`,
      });
    }
    if (job.status !== 'cancelled') {
      const ended = await this.tables.writeWithBookkeeping(auth, async (_tx, sql) => {
        const cancelled = await this.jobs.end(sql, job, 'cancelled', { from: ['queued', 'running'] });
        if (cancelled) await this.jobs.cancel(sql, job);
        return cancelled;
      });
      if (!ended) return this.cancel(auth, id);
      await this.processor.removeFile(job);
    }
    return this.get(auth, id);
  }

  private async find(auth: AuthContext, id: number): Promise<CustomerImport> {
    const job = await this.tables.read(auth).table(CustomerImport).findById(id);
    if (!job) throw new RecordNotFound('customer import');
    return job;
  }
}

/**
 * Copies an upload to `sink` with back-pressure, showing each chunk to `inspect` first (which may
 * refuse the upload by throwing). On a refusal the rest of the body is read and dropped rather
 * than the connection destroyed, so that the client gets the answer.
 */
function receive(body: Readable | undefined, sink: Writable, inspect: (chunk: Buffer) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!body) return sink.end(() => resolve());
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      body.off('data', onData);
      body.resume();
      sink.destroy();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      try {
        inspect(chunk);
      } catch (error) {
        return fail(error);
      }
      if (!sink.write(chunk)) {
        body.pause();
        sink.once('drain', () => body.resume());
      }
    };
    body.on('data', onData);
    body.once('end', () => {
      if (settled) return;
      sink.end(() => {
        settled = true;
        resolve();
      });
    });
    body.once('error', fail);
    body.once('close', () => {
      if (!body.readableEnded) fail(new Error('The upload was interrupted.'));
    });
    sink.once('error', fail);
  });
}
