import type { FieldErrors } from '../../../common/http/api-exception.js';
import { checkCustomerItem } from '../bulk/customer-input.js';
import { duplicateValue, UNKNOWN_ID, type UpsertRow } from '../../../common/persistence/upsert-plan.js';
import type { Customer } from '../entities/customer.entity.js';
import type { CsvRow } from './csv-rows.js';
import type { ImportColumn } from './import-file.js';
import { KeySet } from './key-set.js';

/** A data row of an import: what to write, or why it fails. */
export interface ImportRow {
  line: number;
  upsert?: UpsertRow<Customer>;
  errors?: FieldErrors;
}

/**
 * CSV rows → upserts, with the batch's rules: each row checked by CustomerDto (an empty cell is a
 * field not sent: kept on update, null on create), `id` a positive integer, and the later of two
 * rows of the file with the same `id` or `external_id` failing. Repeats are found across the
 * whole file with a compact set of 64-bit key hashes (about 16 bytes a row); external ids compare
 * exactly, as both databases compare them.
 */
export class ImportRows {
  private readonly seen = new KeySet();

  constructor(private readonly columns: readonly ImportColumn[]) {}

  read(row: CsvRow): ImportRow {
    if ('broken' in row) return { line: row.line, errors: { row: [row.broken] } };
    const { cells, line } = row;
    if (cells.length !== this.columns.length) {
      return {
        line,
        errors: { row: [`The row has ${cells.length} cells; the header names ${this.columns.length} columns.`] },
      };
    }
    const item: Record<string, string> = {};
    let id: number | undefined;
    let idError: string | undefined;
    for (let c = 0; c < cells.length; c++) {
      const cell = cells[c];
      if (cell === '') continue;
      const column = this.columns[c];
      if (column !== 'id') item[column] = cell;
      else if (!/^\d{1,15}$/.test(cell)) idError = 'The id field must be an integer.';
      else if (Number(cell) < 1) idError = UNKNOWN_ID;
      else id = Number(cell);
    }
    const checked = checkCustomerItem(item);
    if (idError || !checked.ok) {
      return { line, errors: { ...(idError ? { id: [idError] } : {}), ...(checked.ok ? {} : checked.errors) } };
    }
    if (id !== undefined && !this.seen.add(`#${id}`)) return { line, errors: { id: [duplicateValue('id')] } };
    const key = checked.values.external_id;
    if (typeof key === 'string' && !this.seen.add(`=${key}`)) {
      return { line, errors: { external_id: [duplicateValue('external_id')] } };
    }
    return { line, upsert: id === undefined ? { values: checked.values } : { id, values: checked.values } };
  }
}
