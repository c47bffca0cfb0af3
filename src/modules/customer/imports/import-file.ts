import { parse } from 'csv-parse/sync';
import { ApiException, ValidationFailed } from '../../../common/http/api-exception.js';
import { CUSTOMER_FIELDS } from '../bulk/customer-input.js';

/** The columns an import file may name in its header, in any order. */
export const IMPORT_COLUMNS = ['id', ...CUSTOMER_FIELDS] as const;
export type ImportColumn = (typeof IMPORT_COLUMNS)[number];

const KNOWN = new Set<string>(IMPORT_COLUMNS);
const MAX_HEADER_BYTES = 64 * 1024;
const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

/** 413: the upload is over IMPORT_MAX_BYTES. */
export const tooLarge = (maxBytes: number) =>
  new ApiException(413, {
    message: `The file is larger than the import limit of ${maxBytes} bytes (IMPORT_MAX_BYTES).`,
  });

/** The header's columns (names trimmed, any case), or a 422 on `header`. */
export function headerColumns(cells: readonly string[]): ImportColumn[] {
  const names = cells.map((cell) => cell.trim().toLowerCase());
  if (names.length === 0 || (names.length === 1 && names[0] === '')) {
    throw ValidationFailed.field('header', 'The file has no header row.');
  }
  const errors: string[] = [];
  const seen = new Set<string>();
  for (const name of names) {
    if (!KNOWN.has(name)) errors.push(`The column "${name}" is unknown; the columns are ${IMPORT_COLUMNS.join(', ')}.`);
    else if (seen.has(name)) errors.push(`The column "${name}" appears more than once.`);
    seen.add(name);
  }
  if (errors.length) throw new ValidationFailed({ header: errors });
  return names as ImportColumn[];
}

/**
 * Watches an upload go by, chunk by chunk: its size (413 past the limit), its header row (checked
 * as soon as it is complete, so a bad file is refused before it is stored whole) and its number of
 * rows, counted outside quoted cells (a file with a broken quote may read as a few rows more or less:
 * the job sets the exact count when it ends).
 */
export class UploadInspector {
  bytes = 0;
  /** Non-empty lines after the header. */
  rows = 0;
  columns: ImportColumn[] | undefined;
  private quoted = false;
  private lineHasText = false;
  private header: Buffer[] = [];
  private headerBytes = 0;

  constructor(private readonly maxBytes: number) {}

  take(chunk: Buffer): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) throw tooLarge(this.maxBytes);
    let from = 0;
    if (!this.columns) {
      from = this.scanHeader(chunk);
      if (!this.columns) return;
    }
    for (let i = from; i < chunk.length; i++) {
      const byte = chunk[i];
      if (byte === QUOTE) {
        this.quoted = !this.quoted;
        this.lineHasText = true;
      } else if (byte === LF && !this.quoted) {
        if (this.lineHasText) this.rows++;
        this.lineHasText = false;
      } else if (byte !== CR) this.lineHasText = true;
    }
  }

  /** Called once the whole body is in; answers the header's columns. */
  finish(): ImportColumn[] {
    if (!this.columns) this.checkHeader(Buffer.concat(this.header));
    if (this.lineHasText) this.rows++;
    this.lineHasText = false;
    return this.columns!;
  }

  /** Collects the header row; answers where the data after it starts in `chunk`. */
  private scanHeader(chunk: Buffer): number {
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      if (byte === QUOTE) this.quoted = !this.quoted;
      else if (byte === LF && !this.quoted) {
        this.header.push(chunk.subarray(0, i));
        this.checkHeader(Buffer.concat(this.header));
        this.header = [];
        return i + 1;
      }
    }
    this.header.push(chunk);
    this.headerBytes += chunk.length;
    if (this.headerBytes > MAX_HEADER_BYTES) {
      throw ValidationFailed.field('header', 'The header row is longer than 64 KiB.');
    }
    return chunk.length;
  }

  private checkHeader(text: Buffer): void {
    let records: string[][];
    try {
      records = parse(text, { bom: true, relax_column_count: true, skip_empty_lines: false }) as string[][];
    } catch {
      throw ValidationFailed.field('header', 'The header row is not valid CSV.');
    }
    this.columns = headerColumns(records[0] ?? []);
    this.quoted = false;
  }
}
