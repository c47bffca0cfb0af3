import { Injectable } from '@nestjs/common';
import { Readable } from 'node:stream';
import type { AuthContext } from '../../../common/auth/auth-context.js';
import type { SqlValue } from '../../../common/persistence/sql.js';
import { containsCondition } from '../../../common/persistence/contains.js';
import type { Condition } from '../../../common/persistence/keyset.js';
import { listIndexName } from '../../../common/persistence/list-index.js';
import { Tables } from '../../../common/persistence/tables.js';
import { CUSTOMER_FIELDS } from '../bulk/customer-input.js';
import type { CustomerExportQueryDto } from '../dto/customer-export.dto.js';
import { toCustomerResponse } from '../dto/customer.response.js';
import { Customer } from '../entities/customer.entity.js';

export type ExportFormat = 'csv' | 'ndjson';

const CSV_COLUMNS = ['id', ...CUSTOMER_FIELDS] as const;

/** A CSV cell: quoted when it must be; an empty string quoted so that it reads back as one. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'string' ? value : String(value);
  if (text === '' || /[",\r\n]/.test(text)) return `"${text.replace(/"/g, '""')}"`;
  return text;
}

/**
 * `GET /api/customers/export`: every customer of the tenant matching the list filters, in id
 * order, as CSV (the import's columns and `id`, so that an export imports back unchanged) or
 * NDJSON (the API's customer records). Keyset steps of 5,000 rows, each read only when the client
 * has taken the previous one (the stream's back-pressure): memory stays flat at any size.
 */
@Injectable()
export class CustomerExportService {
  /** Rows read per query: one keyset step (5,000 reads a million rows in half the time of 1,000). */
  stepRows = 5000;

  constructor(private readonly tables: Tables) {}

  stream(auth: AuthContext, query: CustomerExportQueryDto, format: ExportFormat): Readable {
    return Readable.from(this.chunks(auth, query, format), { objectMode: false, highWaterMark: 64 * 1024 });
  }

  private async *chunks(
    auth: AuthContext,
    query: CustomerExportQueryDto,
    format: ExportFormat,
  ): AsyncGenerator<string> {
    if (format === 'csv') yield `${CSV_COLUMNS.join(',')}\n`;
    for await (const rows of this.batches(auth, query)) {
      let text = '';
      if (format === 'csv') {
        for (const row of rows) {
          const record = row as unknown as Record<string, unknown>;
          text += `${CSV_COLUMNS.map((column) => csvCell(record[column])).join(',')}\n`;
        }
      } else {
        for (const row of rows) text += `${JSON.stringify(toCustomerResponse(row))}\n`;
      }
      yield text;
    }
  }

  private async *batches(auth: AuthContext, query: CustomerExportQueryDto): AsyncGenerator<Customer[]> {
    const reads = this.tables.read(auth);
    const table = reads.table(Customer);
    const t = '`customers`';
    const filters: Condition[] = [];
    if (query.q)
      filters.push(
        containsCondition(
          ['first_name', 'last_name', 'email', 'external_id'].map((c) => `${t}.${c}`),
          query.q,
          table.dialect,
        ),
      );
    for (const column of ['email', 'external_id', 'is_active'] as const) {
      if (query[column] !== undefined) filters.push({ sql: `${t}.${column} = ?`, params: [query[column] as SqlValue] });
    }
    // Unfiltered, MariaDB is told to walk the tenant's (tenant_id, id) index (see ScopedTable.page).
    const hint =
      filters.length === 0 && table.dialect === 'mysql' ? ` FORCE INDEX (${listIndexName('customers', 'id')})` : '';
    const scope = table.scope();
    let after = 0;
    for (;;) {
      const where = [scope, ...filters, { sql: `${t}.id > ?`, params: [after] }];
      const raw = await reads.select<Record<string, unknown>>(
        `SELECT ${table.spec.selectList(t)} FROM ${t}${hint}
          WHERE ${where.map((c) => c.sql).join(' AND ')} ORDER BY ${t}.id LIMIT ${this.stepRows}`,
        where.flatMap((c) => c.params),
      );
      if (raw.length === 0) return;
      const rows = raw.map((row) => table.spec.normalize(row));
      yield rows;
      if (rows.length < this.stepRows) return;
      after = rows[rows.length - 1].id;
    }
  }
}
