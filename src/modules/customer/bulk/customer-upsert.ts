import { loggable, recordActivities, type ActivityEntry } from '../../../common/activity/activity-log.writer.js';
import { wholeSecondNow } from '../../../common/data/columns.js';
import { uniqueViolationField } from '../../../common/data/database-errors.js';
import { CONFLICT_RETRY_AFTER_SECONDS, TRANSACTION_ATTEMPTS, type SqlValue } from '../../../common/data/database.js';
import { ApiException, type FieldErrors } from '../../../common/http/api-exception.js';
import { quote, sameValue } from '../../../common/data/table-gateway.js';
import type { TenantTx } from '../../../common/data/tables.js';
import { Customer } from '../entities/customer.entity.js';
import { CUSTOMER_FIELDS, type CustomerInput } from './customer-input.js';
import { valuesTable } from '../../../common/data/values-table.js';
import { sortKeyOf } from '../../../common/data/sort-key.js';

/** One validated item: the fields it sent, and (CSV rows only) the customer it names. */
export interface UpsertRow {
  id?: number;
  values: CustomerInput;
}

export type UpsertOutcome =
  { status: 'created' | 'updated' | 'unchanged'; id: number } | { status: 'failed'; errors: FieldErrors };

export const DUPLICATE_EXTERNAL_ID = 'The external id field has a duplicate value.';
export const DUPLICATE_ID = 'The id field has a duplicate value.';
export const TAKEN_EXTERNAL_ID = 'The external id has already been taken.';
export const UNKNOWN_ID = 'The selected id is invalid.';

/** A concurrent write moved a row between this transaction's reads: the whole batch runs again. */
class ConcurrentChange extends Error {}

interface KeyHolder {
  /** The customer that has the key, if any. */
  id: number | null;
  /** Its external_id as stored (the key may match it only by the database's collation). */
  stored: string | null;
  /** The first row of the batch with an equal key (equal as the database compares them). */
  first: number;
}

type Row = Customer & Record<string, unknown>;

/**
 * Creates or updates many customers of the transaction's tenant in a handful of statements: one
 * lookup of the external ids, one locking read of the rows to update, one multi-row INSERT (its
 * ids read back by key), one multi-row UPDATE and, with `logEach`, one multi-row activity INSERT.
 *
 * - A row naming an `id` updates that customer (unknown: fails on `id`); any other row is upserted
 *   by `external_id`; a row without one creates a customer.
 * - Keys are compared by the database (case-insensitively on MySQL/MariaDB's collation, exactly on
 *   SQLite), so the index and this code agree on what a duplicate is. The later of two rows with
 *   an equal key, or aimed at the same customer, fails.
 * - Updates write only the fields a row sent, merged with the row read under lock (no lost
 *   update); a row that would change nothing is `unchanged` and not written.
 *
 * A concurrent batch that creates the same new key first makes the INSERT break the unique
 * index: withUpsertRetries runs the whole transaction again, and the row becomes an update.
 */
export async function upsertCustomers(
  tx: TenantTx,
  rows: readonly UpsertRow[],
  options: {
    logEach: boolean;
    /** The id step of a multi-row INSERT when its ids are consecutive (InsertIds); null: read them back. */
    idStep: number | null;
    /** Let the database pair every key (a retry: see lookUpKeys). */
    exactKeys?: boolean;
  },
): Promise<UpsertOutcome[]> {
  const outcomes: (UpsertOutcome | undefined)[] = new Array(rows.length).fill(undefined);
  const fail = (i: number, field: string, message: string) =>
    (outcomes[i] = { status: 'failed', errors: { [field]: [message] } });

  const holders = await lookUpKeys(tx, rows, options.exactKeys ?? false);
  const target: (number | undefined)[] = new Array(rows.length).fill(undefined);
  const claimedBy = new Map<number, number>();
  rows.forEach((row, i) => {
    const key = holders.get(i);
    if (key && key.first !== i) return fail(i, 'external_id', DUPLICATE_EXTERNAL_ID);
    if (row.id !== undefined && key?.id != null && key.id !== row.id) {
      return fail(i, 'external_id', TAKEN_EXTERNAL_ID);
    }
    const id = row.id ?? key?.id ?? undefined;
    if (id === undefined) return;
    if (claimedBy.has(id)) {
      return row.id !== undefined ? fail(i, 'id', DUPLICATE_ID) : fail(i, 'external_id', DUPLICATE_EXTERNAL_ID);
    }
    claimedBy.set(id, i);
    target[i] = id;
  });

  const existing = await lockRows(tx, [...claimedBy.keys()]);
  const creates: number[] = [];
  const updates: { i: number; before: Row; after: Row; changed: string[] }[] = [];
  rows.forEach((row, i) => {
    if (outcomes[i]) return;
    const id = target[i];
    const before = id === undefined ? undefined : existing.get(id);
    if (id !== undefined && !before) {
      // Deleted since the key lookup: the key is free again.
      if (row.id !== undefined) return fail(i, 'id', UNKNOWN_ID);
    }
    if (!before) return creates.push(i);
    if (row.id === undefined && before.external_id !== holders.get(i)?.stored) throw new ConcurrentChange();
    const after = { ...before };
    const changed: string[] = [];
    for (const field of CUSTOMER_FIELDS) {
      const value = row.values[field];
      if (value === undefined || sameValue(value, before[field])) continue;
      (after as Record<string, unknown>)[field] = value;
      changed.push(field);
    }
    if (changed.length === 0) outcomes[i] = { status: 'unchanged', id: before.id };
    else updates.push({ i, before, after, changed });
  });

  const now = wholeSecondNow();
  const created = await insertRows(
    tx,
    creates.map((i) => rows[i].values),
    now,
    options.idStep,
  );
  creates.forEach((i, n) => (outcomes[i] = { status: 'created', id: created[n].id }));
  await updateRows(
    tx,
    updates.map((u) => u.after),
    now,
  );
  for (const u of updates) outcomes[u.i] = { status: 'updated', id: u.before.id };

  if (options.logEach) {
    const spec = tx.table(Customer).spec;
    const entry = (
      row: Row,
      event: 'created' | 'updated',
      attributes: Record<string, unknown>,
      old: Record<string, unknown> | null,
    ): ActivityEntry => ({
      subjectType: spec.entityName,
      subjectId: row.id,
      tenantId: tx.auth.tenantId,
      event,
      attributes,
      old,
    });
    await recordActivities(tx.sql, tx.auth, [
      ...created.map((row) => entry(row, 'created', loggable(row, spec.loggedColumns), null)),
      ...updates.map((u) =>
        entry({ ...u.after, updated_at: now }, 'updated', loggable(u.after, u.changed), loggable(u.before, u.changed)),
      ),
    ]);
  }
  return outcomes as UpsertOutcome[];
}

/**
 * For each row with a string external_id: the customer that has it, and the first row of the
 * batch with an equal key, equal as the database compares them (its collation).
 *
 * Usually one plain `external_id IN (...)` read on the unique index does, matched back here
 * exactly (both databases compare external ids byte for byte). When a customer the database found
 * matches no key, or on a transaction's second attempt, the database itself pairs them: a lookup
 * joined to the keys, with a window over equal keys.
 */
async function lookUpKeys(tx: TenantTx, rows: readonly UpsertRow[], exact: boolean): Promise<Map<number, KeyHolder>> {
  const keyed: [number, string][] = [];
  rows.forEach((row, i) => {
    if (typeof row.values.external_id === 'string') keyed.push([i, row.values.external_id]);
  });
  const holders = new Map<number, KeyHolder>();
  if (keyed.length === 0) return holders;
  const scope = tx.table(Customer).scope('c');
  if (!exact) {
    const found = await tx.sql.query<{ id: number | string; stored: string }>(
      `SELECT c.id AS id, c.external_id AS stored FROM customers c
        WHERE ${scope.sql} AND c.external_id IN (${keyed.map(() => '?').join(', ')})`,
      [...scope.params, ...keyed.map(([, key]) => key)],
    );
    const first = new Map<string, number>();
    for (const [i, key] of keyed) if (!first.has(key)) first.set(key, i);
    const existing = new Map<string, { id: number; stored: string }>();
    for (const row of found) existing.set(row.stored, { id: Number(row.id), stored: row.stored });
    if ([...existing.keys()].every((key) => first.has(key))) {
      for (const [i, key] of keyed) {
        const holder = existing.get(key);
        holders.set(i, { id: holder?.id ?? null, stored: holder?.stored ?? null, first: first.get(key)! });
      }
      return holders;
    }
  }
  const v = valuesTable(tx.sql.dialect, ['i', 'k'], keyed, 'v');
  const found = await tx.sql.query<{
    i: number | string;
    id: number | string | null;
    stored: string | null;
    first: number | string;
  }>(
    `SELECT v.i AS i, c.id AS id, c.external_id AS stored, MIN(v.i) OVER (PARTITION BY v.k) AS first
       FROM ${v.sql} LEFT JOIN customers c ON ${scope.sql} AND c.external_id = v.k`,
    [...v.params, ...scope.params],
  );
  for (const row of found) {
    holders.set(Number(row.i), {
      id: row.id === null ? null : Number(row.id),
      stored: row.stored,
      first: Number(row.first),
    });
  }
  return holders;
}

/** The tenant's customers of these ids, locked for this transaction on MySQL/MariaDB. */
async function lockRows(tx: TenantTx, ids: number[]): Promise<Map<number, Row>> {
  const rows = new Map<number, Row>();
  if (ids.length === 0) return rows;
  const table = tx.table(Customer);
  const scope = table.scope('c');
  const lock = tx.sql.dialect === 'mysql' ? ' FOR UPDATE' : '';
  const found = await tx.sql.query<Record<string, unknown>>(
    `SELECT ${table.spec.selectList('c')} FROM customers c
      WHERE ${scope.sql} AND c.id IN (${ids.map(() => '?').join(', ')})${lock}`,
    [...scope.params, ...ids],
  );
  for (const raw of found) {
    const row = table.spec.normalize(raw) as Row;
    rows.set(row.id, row);
  }
  return rows;
}

/** The columns a batch writes: the fields, and the sort key of the last name (sort-key.ts). */
const WRITTEN = [...CUSTOMER_FIELDS, 'last_name_key'] as const;
const INSERT_COLUMNS = ['tenant_id', ...WRITTEN, 'created_at', 'updated_at'] as const;

/**
 * New customers, as stored, in one multi-row INSERT whose ids follow from the id it answers when
 * they are consecutive (`idStep`). Otherwise (InnoDB's interleaved auto-increment mode, e.g. on
 * Galera) rows with an external id go in one INSERT and their ids are read back by key, and rows
 * without one are inserted one by one.
 */
async function insertRows(tx: TenantTx, inputs: CustomerInput[], now: Date, idStep: number | null): Promise<Row[]> {
  if (inputs.length === 0) return [];
  const table = tx.table(Customer);
  const rows = inputs.map(
    (values) =>
      ({
        ...table.spec.defaults(),
        external_id: null,
        first_name: null,
        last_name: null,
        email: null,
        phone: null,
        attributes: null,
        is_active: true,
        ...values,
        tenant_id: tx.auth.tenantId,
        created_at: now,
        updated_at: now,
        last_name_key: sortKeyOf(values.last_name),
      }) as Row,
  );
  const into = `INSERT INTO customers (${INSERT_COLUMNS.map(quote).join(', ')}) VALUES `;
  const placeholders = `(${INSERT_COLUMNS.map(() => '?').join(', ')})`;
  const paramsOf = (row: Row) => INSERT_COLUMNS.map((c) => (row[c] ?? null) as SqlValue);

  if (idStep !== null) {
    const { insertId, affected } = await tx.sql.run(
      into + rows.map(() => placeholders).join(', '),
      rows.flatMap(paramsOf),
    );
    if (affected !== rows.length) throw new Error(`A multi-row INSERT wrote ${affected} of ${rows.length} rows.`);
    // MySQL/MariaDB answer the first row's id, SQLite the last one's.
    const first = tx.sql.dialect === 'sqlite' ? insertId - (rows.length - 1) * idStep : insertId;
    rows.forEach((row, n) => (row.id = first + n * idStep));
    return rows;
  }
  const keyed = rows.filter((row) => row.external_id !== null);
  if (keyed.length) {
    await tx.sql.run(into + keyed.map(() => placeholders).join(', '), keyed.flatMap(paramsOf));
    const scope = table.scope('c');
    const ids = await tx.sql.query<{ id: number | string; external_id: string }>(
      `SELECT c.id AS id, c.external_id AS external_id FROM customers c
        WHERE ${scope.sql} AND c.external_id IN (${keyed.map(() => '?').join(', ')})`,
      [...scope.params, ...keyed.map((row) => row.external_id)],
    );
    const byKey = new Map(ids.map((r) => [r.external_id, Number(r.id)]));
    for (const row of keyed) {
      const id = byKey.get(row.external_id!);
      if (id === undefined) throw new Error('An inserted customer could not be read back by its external id.');
      row.id = id;
    }
  }
  for (const row of rows) {
    if (row.external_id === null) row.id = (await tx.sql.run(into + placeholders, paramsOf(row))).insertId;
  }
  return rows;
}

const UPDATE_COLUMNS = ['id', ...WRITTEN] as const;

/** Writes every field of each row (merged under lock) in one UPDATE joined to the new values. */
async function updateRows(tx: TenantTx, rows: Row[], now: Date): Promise<void> {
  if (rows.length === 0) return;
  const v = valuesTable(
    tx.sql.dialect,
    UPDATE_COLUMNS,
    rows.map((row) =>
      UPDATE_COLUMNS.map((c) => (c === 'last_name_key' ? sortKeyOf(row.last_name) : (row[c] ?? null)) as SqlValue),
    ),
    'v',
  );
  if (tx.sql.dialect === 'mysql') {
    const scope = tx.table(Customer).scope('c');
    const set = WRITTEN.map((f) => `c.${quote(f)} = v.${f}`).join(', ');
    await tx.sql.run(
      `UPDATE customers c JOIN ${v.sql} ON c.id = v.id SET ${set}, c.updated_at = ? WHERE ${scope.sql}`,
      [...v.params, now, ...scope.params],
    );
  } else {
    const scope = tx.table(Customer).scope('customers');
    const set = WRITTEN.map((f) => `${quote(f)} = v.${f}`).join(', ');
    await tx.sql.run(
      `UPDATE customers SET ${set}, updated_at = ? FROM ${v.sql} WHERE customers.id = v.id AND ${scope.sql}`,
      [now, ...v.params, ...scope.params],
    );
  }
}

/**
 * Runs a batch's transaction again (up to the usual attempts) when a concurrent batch got in
 * first: it created one of the batch's new keys (the unique index refuses the INSERT) or moved
 * a key between the lookup and the locking read. The next attempt sees its work and updates.
 */
export async function withUpsertRetries<T>(work: (attempt: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work(attempt);
    } catch (error) {
      const lostRace = error instanceof ConcurrentChange || uniqueViolationField(error) === 'external_id';
      if (!lostRace) throw error;
      if (attempt >= TRANSACTION_ATTEMPTS) {
        throw new ApiException(
          503,
          { message: 'Service Unavailable: the change kept conflicting with concurrent changes. Try again shortly.' },
          { 'retry-after': String(CONFLICT_RETRY_AFTER_SECONDS) },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 10 * 2 ** (attempt - 1) * (1 + Math.random())));
    }
  }
}
