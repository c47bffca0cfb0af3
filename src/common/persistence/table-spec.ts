import type { DataSource, EntityMetadata, ObjectLiteral } from 'typeorm';
import { toDate } from '../http/serialize.js';
import { sortKeyOf, sortKeysOf } from './sort-key.js';
import { internalColumnsOf } from './version-counter.js';
import { isUnrecorded } from './unrecorded.js';
import { insertsConcurrently } from './concurrent-inserts.js';
import { StatementTexts } from './statement-texts.js';

type Normalize = (value: unknown) => unknown;

const toNumber: Normalize = (v) => (v === null || v === undefined ? null : Number(v));
const toBoolean: Normalize = (v) => (v === null || v === undefined ? null : Boolean(Number(v)));
const toInstant: Normalize = (v) => toDate(v as Date | string | null);

function normalizerFor(type: unknown): Normalize | undefined {
  const name = typeof type === 'string' ? type : typeof type === 'function' ? type.name.toLowerCase() : '';
  if (['decimal', 'numeric', 'bigint', 'int', 'integer', 'float', 'double', 'number'].includes(name)) return toNumber;
  if (name === 'boolean') return toBoolean;
  if (['datetime', 'timestamp', 'date'].includes(name)) return toInstant;
  return undefined;
}

/**
 * `row => ({ "id": convert[0](row["id"] ?? null), "name": row["name"] ?? null, ... })` for the
 * given columns: the entity as one object literal with named properties. Assigning the columns one
 * by one by computed name cost 17 to 28 µs per page of 25 customers (each access a megamorphic
 * keyed one); the literal costs about 1 µs (docs/performance.md). mysql2 builds its row parsers the
 * same way. The names are the entity's column names, written as JSON string literals.
 */
function compileNormalize(normalizers: readonly [string, Normalize | undefined][]): Normalize {
  const fields = normalizers.map(([column, normalize], i) => {
    const key = JSON.stringify(column);
    const value = `(row[${key}] ?? null)`;
    return `${key}: ${normalize ? `convert[${i}](${value})` : value}`;
  });
  const build = new Function('convert', 'row', `return { ${fields.join(', ')} };`) as (
    convert: readonly (Normalize | undefined)[],
    row: Record<string, unknown>,
  ) => unknown;
  const convert = normalizers.map(([, normalize]) => normalize);
  return build.bind(null, convert) as Normalize;
}

/**
 * What the generic layer needs of a table, read once from the entity's TypeORM metadata: its name,
 * the column list to select, and how to turn a driver's row into the entity's values (ids and
 * DECIMALs as numbers, booleans from 0/1, dates as Date: the drivers differ on all three).
 */
export class TableSpec<E extends ObjectLiteral> {
  readonly table: string;
  readonly columns: readonly string[];
  /** `a.id, a.name, ...` for a given alias. */
  readonly selectList: (alias: string) => string;
  readonly softDeleteColumn: string | undefined;
  readonly entityName: string;
  /** Key columns by the column they are the key of (sort-key.ts). */
  readonly sortKeys: ReadonlyMap<string, string>;
  /** The columns the activity log records: every column but the sort keys and internal columns. */
  readonly loggedColumns: readonly string[];
  /** Every column but the id, in the order an INSERT names them. */
  readonly insertColumns: readonly string[];
  /** False for a table declared Unrecorded: its changes are neither logged nor published. */
  readonly recorded: boolean;
  /** False for a table declared ConcurrentBulkInserts: its multi-row inserts never go as LOAD DATA. */
  readonly loadData: boolean;
  /** This table's statement texts that the request path composes, kept by shape. */
  readonly statements = new StatementTexts();
  private readonly logged: ReadonlySet<string>;
  private readonly toEntity: Normalize;
  private readonly columnSet: ReadonlySet<string>;
  private readonly defaultValues: Readonly<Record<string, unknown>>;

  constructor(metadata: EntityMetadata) {
    this.table = metadata.tableName;
    this.entityName = metadata.name;
    this.columns = metadata.columns.map((c) => c.databaseName);
    this.columnSet = new Set(this.columns);
    this.softDeleteColumn = metadata.deleteDateColumn?.databaseName;
    this.recorded = !isUnrecorded(metadata.target);
    this.loadData = !insertsConcurrently(metadata.target);
    this.sortKeys = sortKeysOf(metadata.target);
    const unlogged = new Set([...this.sortKeys.values(), ...internalColumnsOf(metadata.target)]);
    this.loggedColumns = this.columns.filter((c) => !unlogged.has(c));
    this.logged = new Set(this.loggedColumns);
    this.insertColumns = metadata.columns.filter((c) => !c.isGenerated).map((c) => c.databaseName);
    this.toEntity = compileNormalize(metadata.columns.map((c) => [c.databaseName, normalizerFor(c.type)]));
    // What an INSERT that names every column writes where the caller gave no value.
    this.defaultValues = Object.fromEntries(
      metadata.columns
        .filter((c) => !c.isPrimary)
        .map((c) => [c.databaseName, typeof c.default === 'function' ? null : (c.default ?? null)]),
    );
    const cache = new Map<string, string>();
    this.selectList = (alias) => {
      let list = cache.get(alias);
      if (!list) {
        list = this.columns.map((c) => `${alias}.${c}`).join(', ');
        cache.set(alias, list);
      }
      return list;
    };
  }

  static of<E extends ObjectLiteral>(
    dataSource: DataSource,
    entity: { new (): E } | (abstract new () => E),
  ): TableSpec<E> {
    return new TableSpec<E>(dataSource.getMetadata(entity));
  }

  /**
   * Every column's default value (null where the entity declares none), in a new object. (Here and
   * on the write path, Object.assign rather than spreads: docs/performance.md.)
   */
  defaults(): Record<string, unknown> {
    return Object.assign({}, this.defaultValues);
  }

  /** The column a list sorted by `field` orders on: its key where it has one. */
  sortColumn(field: string): string {
    return this.sortKeys.get(field) ?? field;
  }

  /** `values` with the key of every keyed column among them (to write them together), in a new object. */
  withSortKeys<V extends Record<string, unknown>>(values: V): V {
    if (this.sortKeys.size === 0) return values;
    return this.fillSortKeys(Object.assign({}, values));
  }

  /** Sets, in `row` itself, the key of every keyed column it has. */
  fillSortKeys<V extends Record<string, unknown>>(row: V): V {
    for (const [source, key] of this.sortKeys)
      if (source in row) (row as Record<string, unknown>)[key] = sortKeyOf(row[source]);
    return row;
  }

  /** Whether the activity log (and the change feed) records a change of this column. */
  isLogged(column: string): boolean {
    return this.logged.has(column);
  }

  has(column: string): boolean {
    return this.columnSet.has(column);
  }

  /** The entity's values from a driver row (unknown columns are dropped). */
  normalize(row: Record<string, unknown>): E {
    return this.toEntity(row) as E;
  }
}
