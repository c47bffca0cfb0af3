import fc from 'fast-check';
import { uniqueViolationField } from '../src/common/persistence/database-errors.js';
import { Database, LOAD_DATA_MIN_ROWS, type Sql, type SqlValue } from '../src/common/persistence/database.js';
import { InsertIds } from '../src/common/persistence/insert-ids.js';
import { login } from './support/auth.js';
import { createTestApp, type TestApp } from './support/test-app.js';

/**
 * MariaDB (in both suite runs): from LOAD_DATA_MIN_ROWS rows, a multi-row insert in a transaction
 * (a batch's or an import chunk's customers, their events and activity entries) goes as LOAD DATA
 * LOCAL INFILE. What it
 * stores must be exactly what the INSERT it replaces stores, and whatever would have made that
 * INSERT fail (a duplicate key, a value the column cannot hold) must fail it too: LOAD DATA LOCAL
 * turns such errors into warnings and skips or changes the row.
 */
describe('bulk inserts as LOAD DATA on MariaDB', () => {
  let t: TestApp;
  let db: Database;
  const COLUMNS = ['code', 'text', 'moment', 'amount', 'flag'];

  beforeAll(async () => {
    // Each customer of a batch is read back with two requests.
    t = await createTestApp({ database: 'mysql', config: { rateLimitPerMinute: 100_000 } });
    db = t.app.get(Database);
    await db.run(
      `CREATE TABLE loads (id BIGINT UNSIGNED AUTO_INCREMENT PRIMARY KEY, code VARCHAR(64) NOT NULL,
        text TEXT NULL, moment TIMESTAMP(3) NULL, amount DOUBLE NULL, flag TINYINT(1) NULL,
        UNIQUE KEY loads_code_unique (code)) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`,
    );
  });
  afterAll(() => t.close());

  /** Statements of this kind the connection has run so far (a per-session counter, untouched by other tests). */
  const sessionCount = async (sql: Sql, name: string) =>
    Number(
      (
        await sql.query<{ n: string }>(
          'SELECT VARIABLE_VALUE AS n FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = ?',
          [name],
        )
      )[0].n,
    );
  const stored = (from: number) =>
    db.query<Record<string, unknown>>(`SELECT ${COLUMNS.join(', ')} FROM loads WHERE id >= ? ORDER BY id`, [from]);
  const rowCount = async () => Number((await db.query<{ n: string }>('SELECT COUNT(*) AS n FROM loads'))[0].n);

  /** Text with what the load's format must escape (tab, newline, NUL, backslash, `\N`) among any other. */
  const text = fc.string({
    unit: fc.oneof(
      fc.constantFrom('\t', '\n', '\r', '\0', '\\', '\\N', 'N', "'", '"', ',', ' '),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
    ),
    maxLength: 40,
  });
  const row = fc.tuple(
    fc.option(text, { nil: null }),
    fc.option(
      fc.date({ min: new Date('1970-01-02T00:00:00Z'), max: new Date('2037-12-31T00:00:00Z'), noInvalidDate: true }),
      { nil: null },
    ),
    fc.option(fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })), { nil: null }),
    fc.option(fc.boolean(), { nil: null }),
  );

  it('stores text, instants, numbers, nulls and booleans exactly as the multi-row INSERT it replaces', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { minLength: LOAD_DATA_MIN_ROWS, maxLength: LOAD_DATA_MIN_ROWS + 20 }),
        async (rows) => {
          run++;
          const values = (prefix: string): SqlValue[][] => rows.map((r, i) => [`${prefix}-${run}-${i}`, ...r]);
          const [loaded, inserted] = await db.transaction(async (sql) => {
            const loads = await sessionCount(sql, 'COM_LOAD');
            const viaLoad = await sql.insertRows('loads', COLUMNS, values('load'));
            expect(await sessionCount(sql, 'COM_LOAD')).toBe(loads + 1);
            const [last] = await sql.query<{ id: number | string }>('SELECT MAX(id) AS id FROM loads');
            expect(Number(last.id)).toBe(viaLoad.insertId + rows.length - 1); // the first row's id, as an INSERT answers
            const params = values('insert').flat();
            const viaInsert = await sql.run(
              `INSERT INTO loads (${COLUMNS.join(', ')}) VALUES ${rows.map(() => '(?, ?, ?, ?, ?)').join(', ')}`,
              params,
            );
            return [viaLoad.insertId, viaInsert.insertId];
          });
          const byLoad = await stored(loaded);
          const byInsert = await stored(inserted);
          expect(byLoad.slice(0, rows.length).map((r) => ({ ...r, code: undefined }))).toEqual(
            byInsert.map((r) => ({ ...r, code: undefined })),
          );
          // And what was given: text byte for byte, instants to the millisecond, booleans as 1/0.
          expect(byLoad.slice(0, rows.length).map((r) => [r.text, r.moment, r.flag])).toEqual(
            rows.map(([t, moment, , flag]) => [t, moment, flag === null ? null : Number(flag)]),
          );
        },
      ),
      { numRuns: 15, seed: 20261127 },
    );
  });

  it('fails on a duplicate key as an INSERT does (ER_DUP_ENTRY on its key), writing nothing', async () => {
    const rows = Array.from({ length: LOAD_DATA_MIN_ROWS }, (_, i) => [`dup-${i % 60}`, null, null, null, null]);
    const before = await rowCount();
    const failure = await db
      .transaction((sql) => sql.insertRows('loads', COLUMNS, rows))
      .catch((error: unknown) => error);
    expect(uniqueViolationField(failure)).toBe('code');
    expect(await rowCount()).toBe(before);
  });

  it('fails on a value the column cannot hold, where LOAD DATA LOCAL would store it cut, writing nothing', async () => {
    const rows = Array.from({ length: LOAD_DATA_MIN_ROWS }, (_, i) => [
      i === 7 ? 'x'.repeat(65) : `long-${i}`,
      null,
      null,
      null,
      null,
    ]);
    const before = await rowCount();
    await expect(db.transaction((sql) => sql.insertRows('loads', COLUMNS, rows))).rejects.toMatchObject({
      errno: 1265,
      message: expect.stringContaining("Data truncated for column 'code'"),
    });
    expect(await rowCount()).toBe(before);
  });

  describe('through the batch API', () => {
    let token: string;
    beforeAll(async () => {
      token = await login(t);
    });

    const items = (prefix: string, count: number) =>
      Array.from({ length: count }, (_, i) => ({
        external_id: `${prefix}-${i}`,
        first_name: `tab\there ${i}`,
        last_name: i % 3 === 0 ? null : `back\\slash \\N new\nline NUL\u0000 ${i}`,
        attributes: JSON.stringify({ note: `"quoted"\t${i}`, path: 'C:\\temp' }),
        is_active: i % 2 === 0,
      }));

    const sendAndReadBack = async (prefix: string) => {
      const sent = items(prefix, LOAD_DATA_MIN_ROWS + 5);
      const res = await t.http.post('/api/customers/batch').set('Authorization', token).send({ items: sent });
      expect(res.status).toBe(200);
      expect(res.body.meta).toEqual({ created: sent.length, updated: 0, unchanged: 0, failed: 0 });
      const ids = (res.body.data as { id: number }[]).map((result) => result.id);
      const entries = await db.query<{ subject_id: number | string; event: string; properties: string }>(
        'SELECT subject_id, event, properties FROM activity_log WHERE batch_uuid = ? ORDER BY id',
        [res.headers['x-request-id']],
      );
      expect(entries.map((entry) => [Number(entry.subject_id), entry.event])).toEqual(ids.map((id) => [id, 'created']));
      entries.forEach((entry, n) => expect(JSON.parse(entry.properties).attributes).toMatchObject(sent[n]));
      for (const [n, id] of ids.entries()) {
        const got = await t.http.get(`/api/customers/${id}`).set('Authorization', token);
        expect(got.body.data).toMatchObject({ id, ...sent[n] });
        const events = await t.http
          .get('/api/events')
          .query({ resource: 'customer', resource_id: id })
          .set('Authorization', token);
        expect(events.body.data.map((event: { type: string; data: unknown }) => [event.type, event.data])).toEqual([
          ['customer.created', got.body.data],
        ]);
      }
    };

    it('stores every customer, its event and its activity entry exactly as sent and answered', () =>
      sendAndReadBack('api'));

    it('finds the ids of loaded customers also where auto-increment ids may interleave (read back by key)', async () => {
      const spy = jest.spyOn(t.app.get(InsertIds), 'consecutiveStep').mockResolvedValue(null);
      try {
        await sendAndReadBack('interleaved');
      } finally {
        spy.mockRestore();
      }
    });
  });
});
