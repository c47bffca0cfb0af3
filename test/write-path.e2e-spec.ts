import { Column, DataSource, Entity, Table } from 'typeorm';
import type { AuthContext } from '../src/common/auth/auth-context.js';
import { loadConfig } from '../src/common/config/app-config.js';
import { StringColumn } from '../src/common/persistence/columns.js';
import { Database } from '../src/common/persistence/database.js';
import { InsertIds } from '../src/common/persistence/insert-ids.js';
import { SORT_KEY_LENGTH, SortKeyColumn } from '../src/common/persistence/sort-key.js';
import { Tables } from '../src/common/persistence/tables.js';
import { TenantOwnedEntity } from '../src/common/persistence/tenant-owned.entity.js';
import { quote } from '../src/common/persistence/table-gateway.js';
import { Unrecorded } from '../src/common/persistence/unrecorded.js';
import { dataSourceOptions } from '../src/database/data-source-options.js';
import { schemaColumns } from '../src/database/schema-columns.js';
import { freshDatabaseUrl } from './support/test-database.js';

/**
 * A table that only this test has: a column with a default (`finish`) and a column with a sort key
 * (`label` → `label_key`), the two things a hand-written write path forgets. Every write verb of the
 * table layer, single-row and set-based, must fill both.
 */
@Entity('widgets')
class Widget extends TenantOwnedEntity {
  @StringColumn(255, { nullable: true })
  code: string | null;

  @StringColumn(255, { nullable: true })
  label: string | null;

  @SortKeyColumn('label')
  label_key: string | null;

  @StringColumn(40, { default: 'matte' })
  finish: string;
}

/** A part of a widget: a table without sort keys, as the set-based insertSelect writes them. */
@Entity('widget_parts')
class WidgetPart extends TenantOwnedEntity {
  @StringColumn(255)
  code: string;

  @StringColumn(40, { default: 'matte' })
  finish: string;
}

/** A table whose rows are not records (as tracked events are not): nothing of its writes is logged. */
@Entity('gadgets')
@Unrecorded()
class Gadget extends TenantOwnedEntity {
  @StringColumn(255)
  code: string;

  @StringColumn(255, { nullable: true })
  owner: string | null;

  @Column({ type: 'bigint', default: 0 })
  hits: number;

  @Column({ type: 'bigint', nullable: true })
  newest: number | null;
}

const auth = (tenantId: number): AuthContext => ({
  user: { id: 7, tenant_id: tenantId, name: '', email: '', roles: [], permissions: new Set(), tokenId: 0 },
  tenantId,
  tenantChosen: false,
  requestId: 'write-path-test',
});

interface Stored {
  id: number;
  tenant_id: number;
  code: string | null;
  label: string | null;
  label_key: string | null;
  finish: string;
}

describe('the one write path: every verb stamps the tenant, fills defaults and sort keys, and logs', () => {
  let dataSource: DataSource;
  let drop: () => Promise<void>;
  let tablesOf: (insertStep: number | null | 'ask') => Tables;

  beforeAll(async () => {
    const fresh = await freshDatabaseUrl();
    drop = fresh.drop;
    const config = loadConfig({ ...process.env, ...fresh.env, DATA_DIR: fresh.env.DATA_DIR });
    const options = dataSourceOptions(config.database);
    dataSource = new DataSource({
      ...options,
      entities: [...(options.entities as []), Widget, WidgetPart, Gadget],
    } as typeof options);
    await dataSource.initialize();
    await dataSource.runMigrations();
    // The test table, made as a migration makes tables (one definition for both databases).
    const runner = dataSource.createQueryRunner();
    const c = schemaColumns(runner);
    await runner.createTable(
      new Table({
        name: 'widgets',
        columns: [
          c.id(),
          c.bigint('tenant_id'),
          c.string('code', 255, true),
          c.string('label', 255, true),
          c.string('label_key', SORT_KEY_LENGTH, true),
          { name: 'finish', type: 'varchar', length: '40', default: "'matte'" },
          ...c.timestamps(),
        ],
        indices: [{ name: 'widgets_code_unique', columnNames: ['tenant_id', 'code'], isUnique: true }],
      }),
    );
    await runner.createTable(
      new Table({
        name: 'widget_parts',
        columns: [
          c.id(),
          c.bigint('tenant_id'),
          c.string('code', 255),
          { name: 'finish', type: 'varchar', length: '40', default: "'matte'" },
          ...c.timestamps(),
        ],
      }),
    );
    await runner.createTable(
      new Table({
        name: 'gadgets',
        columns: [
          c.id(),
          c.bigint('tenant_id'),
          c.string('code'),
          c.string('owner', 255, true),
          { name: 'hits', type: 'bigint', default: '0' },
          { name: 'newest', type: 'bigint', isNullable: true },
          ...c.timestamps(),
        ],
        indices: [{ name: 'gadgets_code_unique', columnNames: ['tenant_id', 'code'], isUnique: true }],
      }),
    );
    await runner.release();
    const db = new Database(dataSource);
    tablesOf = (insertStep) => {
      // 'ask': what the server says; a number or null: a multi-row INSERT's ids taken as consecutive or read back.
      const ids = insertStep === 'ask' ? new InsertIds(db) : ({ consecutiveStep: async () => insertStep } as InsertIds);
      return new Tables(dataSource, db, ids, []);
    };
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await drop?.();
  });

  const stored = async (ids: number[]): Promise<Stored[]> => {
    const rows: Stored[] = await dataSource.query(
      `SELECT id, tenant_id, code, label, label_key, finish FROM widgets WHERE id IN (${ids.map(() => '?').join(', ')}) ORDER BY id`,
      ids,
    );
    return rows.map((row) => ({ ...row, id: Number(row.id), tenant_id: Number(row.tenant_id) }));
  };
  const logged = async (ids: number[]): Promise<{ subject_id: number; event: string }[]> => {
    const rows: { subject_id: number | string; event: string }[] = await dataSource.query(
      `SELECT subject_id, event FROM activity_log WHERE subject_type = 'Widget' AND subject_id IN (${ids.map(() => '?').join(', ')}) ORDER BY id`,
      ids,
    );
    return rows.map((row) => ({ subject_id: Number(row.subject_id), event: row.event }));
  };

  it('insert one row', async () => {
    const row = await tablesOf('ask').write(auth(1), (tx) => tx.table(Widget).insert({ label: 'Zoë' }));
    expect(await stored([row.id])).toEqual([
      { id: row.id, tenant_id: 1, code: null, label: 'Zoë', label_key: 'zoë', finish: 'matte' },
    ]);
    expect(row).toMatchObject({ tenant_id: 1, label_key: 'zoë', finish: 'matte' });
    expect(await logged([row.id])).toEqual([{ subject_id: row.id, event: 'created' }]);
  });

  it('update one row: its sort key follows its column', async () => {
    const tables = tablesOf('ask');
    const row = await tables.write(auth(1), (tx) => tx.table(Widget).insert({ label: 'Alpha', finish: 'gloss' }));
    const updated = await tables.write(auth(1), (tx) => tx.table(Widget).update(row, { label: 'ÉCLAIR' }));
    expect(updated).toMatchObject({ label: 'ÉCLAIR', label_key: 'éclair', finish: 'gloss' });
    expect(await stored([row.id])).toEqual([
      { id: row.id, tenant_id: 1, code: null, label: 'ÉCLAIR', label_key: 'éclair', finish: 'gloss' },
    ]);
    expect(await logged([row.id])).toEqual([
      { subject_id: row.id, event: 'created' },
      { subject_id: row.id, event: 'updated' },
    ]);
  });

  it.each([
    ['ids as the server numbers them', 'ask' as const],
    ['ids taken as consecutive', 1],
    ['ids read back by key (interleaved auto-increments)', null],
  ])('insert many rows: %s', async (_name, step) => {
    const tables = tablesOf(step);
    const codes = [`im-${String(step)}-a`, `im-${String(step)}-b`, `im-${String(step)}-c`];
    const rows = await tables.write(auth(2), (tx) =>
      tx.table(Widget).insertMany(
        [
          { code: codes[0], label: 'Bravo' },
          { code: codes[1], label: 'alpha', finish: 'satin' },
          { code: codes[2], label: null },
        ],
        { key: 'code' },
      ),
    );
    const ids = rows.map((row) => row.id);
    expect(new Set(ids).size).toBe(3);
    expect(await stored(ids)).toEqual([
      { id: ids[0], tenant_id: 2, code: codes[0], label: 'Bravo', label_key: 'bravo', finish: 'matte' },
      { id: ids[1], tenant_id: 2, code: codes[1], label: 'alpha', label_key: 'alpha', finish: 'satin' },
      { id: ids[2], tenant_id: 2, code: codes[2], label: null, label_key: null, finish: 'matte' },
    ]);
    expect((await logged(ids)).map((entry) => entry.event)).toEqual(['created', 'created', 'created']);
  });

  it('insert many rows without a key where ids may interleave: row by row, each with its own id', async () => {
    const rows = await tablesOf(null).write(auth(2), (tx) =>
      tx.table(Widget).insertMany([{ label: 'One' }, { label: 'Two' }]),
    );
    expect(await stored(rows.map((row) => row.id))).toEqual([
      { id: rows[0].id, tenant_id: 2, code: null, label: 'One', label_key: 'one', finish: 'matte' },
      { id: rows[1].id, tenant_id: 2, code: null, label: 'Two', label_key: 'two', finish: 'matte' },
    ]);
  });

  it('update many rows: one joined UPDATE, sort keys and untouched columns right, unchanged rows not written', async () => {
    const tables = tablesOf('ask');
    const rows = await tables.write(auth(3), (tx) =>
      tx.table(Widget).insertMany([{ label: 'Mike' }, { label: 'November', finish: 'gloss' }, { label: 'Oscar' }]),
    );
    const after = await tables.write(auth(3), async (tx) => {
      const locked = await tx.table(Widget).findMany(
        rows.map((row) => row.id),
        { lock: true },
      );
      const byId = new Map(locked.map((row) => [row.id, row]));
      return tx.table(Widget).updateMany([
        { existing: byId.get(rows[0].id)!, values: { label: 'MIKE II' } },
        { existing: byId.get(rows[1].id)!, values: { finish: 'satin' } },
        { existing: byId.get(rows[2].id)!, values: { label: 'Oscar' } },
      ]);
    });
    expect(after.map((row) => row.label_key)).toEqual(['mike ii', 'november', 'oscar']);
    expect(await stored(rows.map((row) => row.id))).toEqual([
      { id: rows[0].id, tenant_id: 3, code: null, label: 'MIKE II', label_key: 'mike ii', finish: 'matte' },
      { id: rows[1].id, tenant_id: 3, code: null, label: 'November', label_key: 'november', finish: 'satin' },
      { id: rows[2].id, tenant_id: 3, code: null, label: 'Oscar', label_key: 'oscar', finish: 'matte' },
    ]);
    expect(await logged([rows[2].id])).toEqual([{ subject_id: rows[2].id, event: 'created' }]);
  });

  it('upsert many rows: creates, updates by key and by id, fails repeats, keeps other tenants apart', async () => {
    const tables = tablesOf('ask');
    const [existing] = await tables.write(auth(4), (tx) =>
      tx.table(Widget).insertMany([{ code: 'up-1', label: 'Old' }], { key: 'code' }),
    );
    // The same key in another tenant is another row.
    await tables.write(auth(5), (tx) => tx.table(Widget).insert({ code: 'up-1', label: 'Elsewhere' }));
    const outcomes = await tables.write(auth(4), (tx) =>
      tx
        .table(Widget)
        .upsertMany(
          [
            { values: { code: 'up-1', label: 'Renamed' } },
            { values: { code: 'up-2', label: 'Fresh' } },
            { values: { label: 'No key' } },
            { values: { code: 'up-2', label: 'Again' } },
            { id: existing.id, values: { finish: 'gloss' } },
          ],
          { key: 'code', attempt: tx.attempt },
        ),
    );
    expect(outcomes).toEqual([
      { status: 'updated', id: existing.id },
      { status: 'created', id: expect.any(Number) },
      { status: 'created', id: expect.any(Number) },
      { status: 'failed', errors: { code: ['The code field has a duplicate value.'] } },
      { status: 'failed', errors: { id: ['The id field has a duplicate value.'] } },
    ]);
    const ids = outcomes.flatMap((o) => ('id' in o ? [o.id] : []));
    expect(await stored(ids)).toEqual(
      [
        { id: existing.id, tenant_id: 4, code: 'up-1', label: 'Renamed', label_key: 'renamed', finish: 'matte' },
        { id: ids[1], tenant_id: 4, code: 'up-2', label: 'Fresh', label_key: 'fresh', finish: 'matte' },
        { id: ids[2], tenant_id: 4, code: null, label: 'No key', label_key: 'no key', finish: 'matte' },
      ].sort((a, b) => a.id - b.id),
    );
    const again = await tables.write(auth(4), (tx) =>
      tx.table(Widget).upsertMany([{ values: { code: 'up-1', label: 'Renamed' } }], { key: 'code', attempt: 1 }),
    );
    expect(again).toEqual([{ status: 'unchanged', id: existing.id }]);
  });

  it('upsert many rows: two writers creating one new key both succeed, one creating it and one updating it', async () => {
    const tables = tablesOf('ask');
    const upsert = (label: string) =>
      tables.write(auth(6), (tx) =>
        tx.table(Widget).upsertMany([{ values: { code: 'race', label } }], { key: 'code', attempt: tx.attempt }),
      );
    const outcomes = await Promise.all([upsert('First'), upsert('Second')]);
    expect(outcomes.map(([o]) => o.status).sort()).toEqual(['created', 'updated']);
    const [row] = (await dataSource.query("SELECT label_key, finish FROM widgets WHERE code = 'race'")) as Stored[];
    expect(['first', 'second']).toContain(row.label_key);
    expect(row.finish).toBe('matte');
  });

  it('insert what a SELECT yields, set-based: stamped with the tenant, timestamped, defaults filled, none logged', async () => {
    const tables = tablesOf('ask');
    const made = await tables.write(auth(9), (tx) =>
      tx
        .table(Widget)
        .insertMany([{ code: 'set-1', label: 'One' }, { code: 'set-2', label: 'Two' }, { code: 'set-3' }]),
    );
    const before = Date.now() - 1_000;
    const inserted = await tables.write(auth(9), (tx) => {
      const widgets = tx.table(Widget);
      const scope = widgets.scope('w');
      return tx.table(WidgetPart).insertSelect(['code'], {
        sql: `SELECT w.code FROM widgets w WHERE ${scope.sql} AND w.label IS NOT NULL`,
        params: scope.params,
      });
    });
    expect(inserted).toBe(2);
    const parts: { tenant_id: number | string; code: string; finish: string; created_at: Date | string }[] =
      await dataSource.query(
        "SELECT tenant_id, code, finish, created_at FROM widget_parts WHERE code LIKE 'set-%' ORDER BY code",
      );
    expect(parts.map((p) => [Number(p.tenant_id), p.code, p.finish])).toEqual([
      [9, 'set-1', 'matte'],
      [9, 'set-2', 'matte'],
    ]);
    const createdAt = parts[0].created_at;
    const at = createdAt instanceof Date ? createdAt : new Date(`${createdAt.replace(' ', 'T')}Z`);
    expect(at.getTime()).toBeGreaterThanOrEqual(before);
    expect(await dataSource.query("SELECT COUNT(*) AS n FROM activity_log WHERE subject_type = 'WidgetPart'")).toEqual([
      { n: expect.anything() },
    ]);
    expect(
      Number((await dataSource.query("SELECT COUNT(*) AS n FROM activity_log WHERE subject_type = 'WidgetPart'"))[0].n),
    ).toBe(0);
    expect(made).toHaveLength(3);
    // A table with sort keys is written row by row, where the gateway computes them.
    await expect(
      tables.write(auth(9), (tx) => tx.table(Widget).insertSelect(['code'], { sql: 'SELECT ?', params: ['x'] })),
    ).rejects.toThrow(/insertSelect writes no sort keys/);
  });

  const gadgets = async (tenantId: number) =>
    (
      (await dataSource.query('SELECT id, code, owner, hits, newest FROM gadgets WHERE tenant_id = ? ORDER BY id', [
        tenantId,
      ])) as { id: number | string; code: string; owner: string | null; hits: number | string; newest: unknown }[]
    ).map((row) => ({
      id: Number(row.id),
      code: row.code,
      owner: row.owner,
      hits: Number(row.hits),
      newest: row.newest === null ? null : Number(row.newest),
    }));
  const gadgetLog = async () =>
    (
      (await dataSource.query("SELECT COUNT(*) AS n FROM activity_log WHERE subject_type = 'Gadget'")) as {
        n: number | string;
      }[]
    )[0].n;

  it('insert new rows: a key stored once, later rows and stored keys are duplicates; an Unrecorded table logs nothing', async () => {
    const tables = tablesOf('ask');
    const [stored] = await tables.write(auth(8), (tx) => tx.table(Gadget).insertMany([{ code: 'k-1' }]));
    await tables.write(auth(9), (tx) => tx.table(Gadget).insert({ code: 'k-2', owner: 'other tenant' }));
    const outcomes = await tables.write(auth(8), (tx) =>
      tx
        .table(Gadget)
        .insertNew([{ code: 'k-1' }, { code: 'k-2', owner: 'a' }, { code: 'k-3' }, { code: 'k-2', owner: 'b' }], {
          key: 'code',
          attempt: tx.attempt,
        }),
    );
    const rows = await gadgets(8);
    const k2 = rows.find((row) => row.code === 'k-2')!;
    expect(outcomes).toEqual([
      { status: 'duplicate', id: stored.id },
      { status: 'created', id: k2.id },
      { status: 'created', id: rows.find((row) => row.code === 'k-3')!.id },
      { status: 'duplicate', id: k2.id },
    ]);
    expect(rows.map((row) => [row.code, row.owner])).toEqual([
      ['k-1', null],
      ['k-2', 'a'],
      ['k-3', null],
    ]);
    expect(Number(await gadgetLog())).toBe(0);
  });

  it('insert new rows under a cap: the new rows beyond it fail with its refusal, repeats with them', async () => {
    const tables = tablesOf('ask');
    const asked: number[] = [];
    const outcomes = await tables.write(auth(10), (tx) =>
      tx.table(Gadget).insertNew([{ code: 'c-1' }, { code: 'c-2' }, { code: 'c-3' }, { code: 'c-3' }], {
        key: 'code',
        attempt: tx.attempt,
        creates: async (wanted) => {
          asked.push(wanted);
          return { max: 2, refusal: { limit: ['No room.'] } };
        },
      }),
    );
    expect(asked).toEqual([3]);
    expect(outcomes.map((o) => o.status)).toEqual(['created', 'created', 'failed', 'failed']);
    expect(outcomes[3]).toEqual({ status: 'failed', errors: { limit: ['No room.'] } });
    expect((await gadgets(10)).map((row) => row.code)).toEqual(['c-1', 'c-2']);
  });

  it('insert new rows: writers racing on one new key store it once, the others answer its id', async () => {
    const tables = tablesOf('ask');
    const insert = (owner: string) =>
      tables.write(auth(11), (tx) =>
        tx.table(Gadget).insertNew([{ code: 'race', owner }], { key: 'code', attempt: tx.attempt }),
      );
    const outcomes = (await Promise.all(['a', 'b', 'c', 'd'].map(insert))).map(([o]) => o);
    const rows = await gadgets(11);
    expect(rows).toHaveLength(1);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['created', 'duplicate', 'duplicate', 'duplicate']);
    expect(outcomes.every((o) => 'id' in o && o.id === rows[0].id)).toBe(true);
  });

  it('find a batch, update matching rows, tally counters: in the scope only, nothing logged', async () => {
    const tables = tablesOf('ask');
    await tables.write(auth(12), (tx) =>
      tx.table(Gadget).insertMany(['b-3', 'b-1', 'b-2', 'b-4'].map((code) => ({ code, owner: 'x' }))),
    );
    await tables.write(auth(13), (tx) => tx.table(Gadget).insert({ code: 'b-1', owner: 'x' }));
    const g = quote('gadgets');
    const batch = await tables.write(auth(12), (tx) =>
      tx
        .table(Gadget)
        .findBatch([{ sql: `${g}.owner = ?`, params: ['x'] }], { limit: 3, orderBy: ['code'], lock: true }),
    );
    expect(batch.map((row) => [row.tenant_id, row.code])).toEqual([
      [12, 'b-1'],
      [12, 'b-2'],
      [12, 'b-3'],
    ]);
    const moved = await tables.write(auth(12), (tx) =>
      tx.table(Gadget).updateMatching([{ sql: `${g}.code IN (?, ?)`, params: ['b-1', 'b-4'] }], { owner: 'y' }),
    );
    expect(moved).toBe(2);
    await tables.write(auth(12), (tx) =>
      tx.table(Gadget).tally([
        { id: batch[1].id, add: { hits: 5 }, atLeast: { newest: 100 } },
        { id: batch[0].id, add: { hits: -2 } },
      ]),
    );
    await tables.write(auth(12), (tx) =>
      tx.table(Gadget).tally([{ id: batch[1].id, add: { hits: 1 }, atLeast: { newest: 50 } }]),
    );
    expect((await gadgets(12)).map((row) => [row.code, row.owner, row.hits, row.newest])).toEqual([
      ['b-3', 'x', 0, null],
      ['b-1', 'y', -2, null],
      ['b-2', 'x', 6, 100],
      ['b-4', 'y', 0, null],
    ]);
    expect((await gadgets(13)).map((row) => [row.code, row.owner])).toEqual([['b-1', 'x']]);
    await tables.write(auth(12), (tx) => tx.table(Gadget).removeMany(batch));
    expect((await gadgets(12)).map((row) => row.code)).toEqual(['b-4']);
    expect(Number(await gadgetLog())).toBe(0);
    // A recorded table's changes are recorded one by one (updateMany), never by a blind UPDATE.
    await expect(tables.write(auth(12), (tx) => tx.table(Widget).updateMatching([], { label: 'x' }))).rejects.toThrow(
      /updateMatching is for Unrecorded tables/,
    );
  });

  it('writes nothing outside Tables.write', async () => {
    const reads = tablesOf('ask').read(auth(1));
    await expect(
      (reads.table(Widget) as unknown as { insert(v: object): Promise<unknown> }).insert({ label: 'x' }),
    ).rejects.toThrow(/writes go through Tables.write/);
    expect(() => reads.select('UPDATE widgets SET label = NULL')).toThrow(/SELECT statements only/);
  });
});
