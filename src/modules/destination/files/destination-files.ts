import { randomBytes } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../common/config/app-config.js';
import { csvCell } from '../../customer/export/customer-export.service.js';
import { wireRecord, type DeliveryRecord } from '../delivery/delivery-record.js';

/** One file a `file` destination wrote, as `GET /api/campaign-runs/{id}/files` lists it. */
export interface DestinationFile {
  name: string;
  campaign_destination_id: number | null;
  format: 'csv' | 'ndjson';
  records: number;
  bytes: number;
  created_at: string;
}

/** Where a file goes: a run's folder, or the tests' one. */
export interface FilePlace {
  tenantId: number;
  /** null: a test send (the folder `tests`). */
  runId: number | null;
}

export interface FileSpec extends FilePlace {
  /** The file's name: letters, digits, `.`, `_` and `-`, ending in `.csv` or `.ndjson`. */
  name: string;
  campaignDestinationId: number | null;
  format: 'csv' | 'ndjson';
  /** CSV: the mapped targets, each a column (dotted paths as names) after the record's own columns. */
  targets: readonly string[];
}

/** The columns every CSV file starts with. */
export const CSV_RECORD_COLUMNS = ['message_id', 'action', 'customer_id', 'external_id', 'treatment_group_id'] as const;

const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}\.(csv|ndjson)$/;
const META = '.meta';

/**
 * The files of `file` destinations (docs/destinations/file.md), under
 * `STORAGE_DIR/destination-files/<tenant>/run-<run>/` (a test send's under `tests/`): CSV (the
 * record's columns, then the mapped targets) or NDJSON (a line per record, as a webhook body holds
 * it). A file is written beside its final name and renamed when complete, so a listed file is
 * always whole, and one written again (a retried batch) replaces it. Each has its listing entry in
 * `.meta/`. Kept FILE_RETENTION_DAYS (FileRetention sweeps them).
 */
@Injectable()
export class DestinationFiles {
  readonly root: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.root = join(config.storageDir, 'destination-files');
  }

  static isFileName(name: string): boolean {
    return FILE_NAME.test(name) && !name.includes('..');
  }

  folder(place: FilePlace): string {
    return join(this.root, String(place.tenantId), place.runId === null ? 'tests' : `run-${place.runId}`);
  }

  /** A writer of one file; nothing is visible under its name until `close`. */
  async open(spec: FileSpec): Promise<FileWriter> {
    if (!DestinationFiles.isFileName(spec.name)) throw new Error(`not a file name: ${spec.name}`);
    const folder = this.folder(spec);
    await mkdir(join(folder, META), { recursive: true });
    const writer = new FileWriter(folder, spec);
    await writer.start();
    return writer;
  }

  /** The files of a run (or of the tests), oldest first. */
  async list(place: FilePlace): Promise<DestinationFile[]> {
    const folder = join(this.folder(place), META);
    let names: string[];
    try {
      names = await readdir(folder);
    } catch {
      return [];
    }
    const files: DestinationFile[] = [];
    for (const name of names.filter((n) => n.endsWith('.json'))) {
      try {
        files.push(JSON.parse(await readFile(join(folder, name), 'utf8')) as DestinationFile);
      } catch {
        // being written: listed once complete
      }
    }
    return files.sort((a, b) =>
      a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.name < b.name ? -1 : 1,
    );
  }

  /** The path of a listed file to download, or undefined (unknown, or a name that is no file's). */
  async pathOf(place: FilePlace, name: string): Promise<string | undefined> {
    if (!DestinationFiles.isFileName(name)) return undefined;
    const path = join(this.folder(place), name);
    const found = await stat(path).catch(() => undefined);
    return found?.isFile() ? path : undefined;
  }

  /** Removes the folders (runs, tests) of every tenant whose newest file is older than `before`. Answers how many. */
  async sweep(before: number): Promise<number> {
    let removed = 0;
    for (const tenant of await readdir(this.root).catch(() => [] as string[])) {
      const tenantFolder = join(this.root, tenant);
      for (const folder of await readdir(tenantFolder).catch(() => [] as string[])) {
        const path = join(tenantFolder, folder);
        const entries = await readdir(path).catch(() => [] as string[]);
        let newest = 0;
        for (const entry of entries) {
          const info = await stat(join(path, entry)).catch(() => undefined);
          if (info) newest = Math.max(newest, info.mtimeMs);
        }
        if (newest < before) {
          await rm(path, { recursive: true, force: true });
          removed++;
        }
      }
    }
    return removed;
  }
}

/** Writes one file: a temporary name first, the final one once closed. */
export class FileWriter {
  private readonly temporary: string;
  private stream!: WriteStream;
  private records = 0;
  private bytes = 0;

  constructor(
    private readonly folder: string,
    private readonly spec: FileSpec,
  ) {
    this.temporary = join(folder, `.${spec.name}.${randomBytes(6).toString('hex')}.tmp`);
  }

  async start(): Promise<void> {
    this.stream = createWriteStream(this.temporary, { flags: 'wx' });
    await once(this.stream, 'open');
    if (this.spec.format === 'csv')
      await this.put(`${[...CSV_RECORD_COLUMNS, ...this.spec.targets].map(csvCell).join(',')}\n`);
  }

  async write(records: readonly DeliveryRecord[]): Promise<void> {
    let text = '';
    for (const record of records) {
      text +=
        this.spec.format === 'csv' ? csvLine(record, this.spec.targets) : `${JSON.stringify(wireRecord(record))}\n`;
    }
    this.records += records.length;
    await this.put(text);
  }

  /** Completes the file: renamed to its name (replacing one written before), and listed. */
  async close(): Promise<DestinationFile> {
    await new Promise<void>((resolve, reject) =>
      this.stream.end((error?: Error | null) => (error ? reject(error) : resolve())),
    );
    const entry: DestinationFile = {
      name: this.spec.name,
      campaign_destination_id: this.spec.campaignDestinationId,
      format: this.spec.format,
      records: this.records,
      bytes: this.bytes,
      created_at: new Date().toISOString(),
    };
    await rename(this.temporary, join(this.folder, this.spec.name));
    await writeFile(join(this.folder, META, `${this.spec.name}.json`), JSON.stringify(entry));
    return entry;
  }

  /** Drops what was written. */
  async abort(): Promise<void> {
    this.stream.destroy();
    await rm(this.temporary, { force: true });
  }

  private async put(text: string): Promise<void> {
    if (text === '') return;
    this.bytes += Buffer.byteLength(text);
    if (!this.stream.write(text)) await once(this.stream, 'drain');
  }
}

/** A record's CSV line: its own columns, then each target's value (an object or array as JSON text). */
function csvLine(record: DeliveryRecord, targets: readonly string[]): string {
  const cells: unknown[] = [
    record.message_id,
    record.action,
    record.customer_id,
    record.external_id,
    record.treatment_group_id,
  ];
  for (const target of targets) {
    let value: unknown = record.data;
    for (const step of target.split('.')) {
      value =
        value !== null && typeof value === 'object' && Object.prototype.hasOwnProperty.call(value, step)
          ? (value as Record<string, unknown>)[step]
          : undefined;
    }
    cells.push(value !== null && typeof value === 'object' ? JSON.stringify(value) : value);
  }
  return `${cells.map(csvCell).join(',')}\n`;
}
