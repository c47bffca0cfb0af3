import { DataSource } from 'typeorm';
import { login } from './support/auth.js';
import { SCHEMA_LISTING } from './support/schema-listing.js';
import { createTestApp, type TestApp } from './support/test-app.js';
import { mysqlBaseUrl } from './support/test-database.js';

const onMysql = !!mysqlBaseUrl();

interface Field {
  name: string;
  display_name: string | null;
  db_type: string;
  app_type: string | null;
  nullable: boolean;
  default: string | null;
  auto_incrementing: boolean;
  info: string | null;
}
interface TableEntry {
  table_name: string;
  table_display_name: string | null;
  info: string | null;
  fields: Field[];
}

describe('diagnostics', () => {
  let t: TestApp;
  beforeAll(async () => {
    // No queue of this instance runs: the health answer's backlog is the queues' as they stand (empty).
    t = await createTestApp({
      config: {
        webhooks: { worker: false },
        events: { background: false },
        imports: { runner: false },
        erasures: { runner: false },
      },
    });
  });
  afterAll(() => t.close());

  describe('connectionStatus: GET /api/db/test', () => {
    it('GET /api/db/test answers the connection, database and status', async () => {
      const res = await t.http.get('/api/db/test').expect(200);
      expect(res.body).toEqual({
        code: 200,
        message: expect.any(String),
        data: { connection: onMysql ? 'mysql' : 'sqlite', database: t.config.database.name, status: 'connected' },
      });
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expect(res.headers['access-control-allow-origin']).toBe('*');
    });
  });

  describe('ping: GET /api/db-test', () => {
    it('GET /api/db-test answers code, message and null data', async () => {
      const res = await t.http.get('/api/db-test').expect(200);
      expect(res.body).toEqual({ code: 200, message: expect.any(String), data: null });
    });
  });

  describe('health: GET /api/health', () => {
    it('GET /api/health pings the database and names the state of Redis', async () => {
      const res = await t.http.get('/api/health').expect(200);
      expect(res.body.code).toBe(200);
      // Every test app counts in the machine's Redis when REDIS_URL is set (CI); its outage is
      // test/redis-outage.e2e-spec.ts.
      // Every queue of background work, each idle here (its backlog when not: test/jobs.e2e-spec.ts).
      const idle = { pending: 0, oldest_pending_seconds: null };
      const jobs = Object.fromEntries(
        [
          'customer-import',
          'campaign-run',
          'campaign-run-retention',
          'campaign-schedule',
          'customer-erasure',
          'customer-event-retention',
          'webhook-fanout',
          'webhook-delivery',
          'webhook-retention',
          'event-retention',
          'destination-delivery',
          'destination-file-retention',
        ].map((queue) => [queue, idle]),
      );
      expect(res.body.data).toEqual(
        t.config.redisUrl
          ? { status: 'ok', database: 'up', redis: 'up', rate_limit_counters: 'shared', jobs }
          : { status: 'ok', database: 'up', redis: 'not_configured', rate_limit_counters: 'in-process', jobs },
      );
    });
  });

  describe('tables: GET /api/tables', () => {
    it('GET /api/tables lists every table of the schema listing with its columns, metadata null', async () => {
      const res = await t.http.get('/api/tables').expect(200);
      expect(res.body.code).toBe(200);
      const tables = res.body.data as TableEntry[];
      const byName = new Map(tables.map((table) => [table.table_name, table]));
      expect(byName.has('migrations')).toBe(true);
      for (const [tableName, listed] of Object.entries(SCHEMA_LISTING)) {
        const table = byName.get(tableName);
        expect(table).toBeDefined();
        expect(table!.table_display_name).toBeNull();
        expect(table!.info).toBeNull();
        // Listed columns come first, in the listed order; extras may follow.
        expect(table!.fields.slice(0, listed.length).map((f) => f.name)).toEqual(listed.map((c) => c.name));
        for (const column of listed) {
          const field = table!.fields.find((f) => f.name === column.name)!;
          const actual = {
            nullable: field.nullable,
            auto: field.auto_incrementing,
            display_name: field.display_name,
            app_type: field.app_type,
            info: field.info,
          };
          expect({ table: tableName, column: column.name, ...actual }).toEqual({
            table: tableName,
            column: column.name,
            nullable: column.nullable,
            auto: column.auto,
            display_name: null,
            app_type: null,
            info: null,
          });
          if (onMysql) {
            expect(`${tableName}.${column.name}: ${field.db_type} default ${field.default}`).toBe(
              `${tableName}.${column.name}: ${column.db_type} default ${column.default}`,
            );
          } else if (column.nullable) {
            expect(field.default).toBe('NULL');
          }
        }
      }
    });
  });

  describe('schema: GET /api/db/schema', () => {
    it('GET /api/db/schema fills display names, application types and descriptions from the metadata tables', async () => {
      const res = await t.http.get('/api/db/schema').expect(200);
      const tables = res.body.data as TableEntry[];
      expect(tables.length).toBeGreaterThanOrEqual(Object.keys(SCHEMA_LISTING).length);
      for (const table of tables) {
        expect(table.table_display_name).toEqual(expect.any(String));
        for (const field of table.fields) {
          expect(field.display_name).toEqual(expect.any(String));
          expect(field.app_type).toEqual(expect.any(String));
        }
      }
      const users = tables.find((table) => table.table_name === 'users')!;
      expect(users.table_display_name).toBe('Users');
      expect(users.info).toEqual(expect.stringContaining('sign in'));
      expect(users.fields.find((f) => f.name === 'email')).toMatchObject({
        display_name: 'E-mail',
        app_type: 'email',
        db_type: 'varchar(255)',
      });
      expect(users.fields.find((f) => f.name === 'created_at')).toMatchObject({
        display_name: 'Created At',
        app_type: 'datetime',
      });
    });

    it('keeps metadata rows that were edited, across restarts', async () => {
      // A second instance over the same database runs the seeder again; it adds nothing and overwrites nothing.
      const second = await createTestApp({ sharedWith: t });
      try {
        const before = (await t.http.get('/api/db/schema')).body.data as TableEntry[];
        const after = (await second.http.get('/api/db/schema')).body.data as TableEntry[];
        expect(after).toEqual(before);
      } finally {
        await second.app.close();
      }
    });
  });
});

describe('schema: GET /api/db/schema when the metadata cannot be read', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('answers /api/db/schema with its 500 body when the metadata cannot be read', async () => {
    const dataSource = t.app.get(DataSource);
    await dataSource.query('ALTER TABLE table_metadata RENAME TO table_metadata_gone');
    try {
      const res = await t.http.get('/api/db/schema').expect(500);
      expect(res.body).toEqual({
        code: 500,
        message: 'Failed to retrieve database schema.',
        data: { error: expect.stringContaining('table_metadata') },
      });
      expect(res.headers['cache-control']).toBe('no-cache, private');
    } finally {
      await dataSource.query('ALTER TABLE table_metadata_gone RENAME TO table_metadata');
    }
    await t.http.get('/api/db/schema').expect(200);
  });
});

describe('first start', () => {
  it('creates the super-admin with a generated password printed once, never again', async () => {
    const lines: string[] = [];
    const spy = jest.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(String(line)));
    try {
      const first = await createTestApp({ env: { ADMIN_PASSWORD: undefined, ADMIN_EMAIL: 'owner@example.com' } });
      const printed = lines.filter((l) => l.includes('owner@example.com'));
      expect(printed).toHaveLength(1);
      const password = /owner@example\.com \/ (\S+)/.exec(printed[0])![1];
      await login(first, 'owner@example.com', password);
      const second = await createTestApp({
        sharedWith: first,
        env: { ADMIN_PASSWORD: undefined, ADMIN_EMAIL: 'owner@example.com' },
      });
      await second.app.close();
      expect(lines.filter((l) => l.includes('owner@example.com'))).toHaveLength(1);
      const tenants = await first.app.get(DataSource).query('SELECT name FROM tenants');
      expect(tenants).toEqual([{ name: 'Default' }]);
      await first.close();
    } finally {
      spy.mockRestore();
    }
  });
});
