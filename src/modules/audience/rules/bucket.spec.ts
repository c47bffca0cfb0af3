import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import {
  BUCKETS,
  assignGroup,
  bucketOf,
  bucketRanges,
  bucketSql,
  registerSqliteFunctions,
  summarizeBuckets,
  type SqliteFunctionHost,
} from './bucket.js';

/** The formula written out independently: the first 8 hex digits of the digest, as an integer. */
const reference = (campaignId: number, customerId: number) =>
  parseInt(createHash('sha256').update(`${campaignId}:${customerId}`, 'utf8').digest('hex').slice(0, 8), 16) % 10000;

describe('bucketOf', () => {
  it('agrees with values computed elsewhere (sha256sum, MariaDB SHA2)', () => {
    // printf '1:1' | sha256sum → d6b5915c...; 0xd6b5915c = 3602223452
    // MariaDB: CONV(LEFT(SHA2('42:1000000', 256), 8), 16, 10) = 3136572140
    expect(bucketOf(1, 1)).toBe(3452);
    expect(bucketOf('42', 1_000_000n)).toBe(2140);
    expect(reference(42, 1_000_000)).toBe(2140);
  });

  it('agrees with the formula on many ids, and spreads them evenly', () => {
    const perTenth = new Array(10).fill(0);
    for (let id = 1; id <= 20_000; id++) {
      const bucket = bucketOf(7, id);
      expect(bucket).toBe(reference(7, id));
      perTenth[Math.floor(bucket / 1000)]++;
    }
    for (const count of perTenth) expect(Math.abs(count - 2000)).toBeLessThan(200);
  });

  it('refuses what is not an id', () => {
    expect(() => bucketOf(1.5, 1)).toThrow();
    expect(() => bucketOf(1, '1; DROP')).toThrow();
    expect(() => bucketOf(-1, 1)).toThrow();
  });
});

describe('bucketRanges / assignGroup', () => {
  const groups = [
    { id: 12, allocation_percentage: '33.33' },
    { id: 3, allocation_percentage: 50 },
    { id: 7, allocation_percentage: '0.00' },
  ];

  it('gives consecutive ranges from 0 in id order, allocation × 100 wide', () => {
    expect(bucketRanges(groups)).toEqual([
      { groupId: 3, from: 0, to: 5000 },
      { groupId: 7, from: 5000, to: 5000 },
      { groupId: 12, from: 5000, to: 8333 },
    ]);
  });

  it('assigns by range and holds out the rest', () => {
    expect(assignGroup(0, groups)).toBe(3);
    expect(assignGroup(4999, groups)).toBe(3);
    expect(assignGroup(5000, groups)).toBe(12);
    expect(assignGroup(8332, groups)).toBe(12);
    expect(assignGroup(8333, groups)).toBeNull();
    expect(assignGroup(BUCKETS - 1, [{ id: 1, allocation_percentage: '100.00' }])).toBe(1);
    expect(assignGroup(0, [])).toBeNull();
  });

  it('never hands out more than 10,000 buckets', () => {
    expect(
      bucketRanges([
        { id: 1, allocation_percentage: 80 },
        { id: 2, allocation_percentage: 80 },
      ]),
    ).toEqual([
      { groupId: 1, from: 0, to: 8000 },
      { groupId: 2, from: 8000, to: 10000 },
    ]);
  });

  it('folds per-bucket counts into per-group counts', () => {
    const rows = [
      { bucket: 0, customers: 2 },
      { bucket: '4999', customers: '3' },
      { bucket: 5000, customers: 4 },
      { bucket: 9999, customers: 5 },
    ];
    expect(summarizeBuckets(rows, groups)).toEqual({
      groups: [
        { id: 3, customers: 5 },
        { id: 7, customers: 0 },
        { id: 12, customers: 4 },
      ],
      held_out: 5,
    });
  });
});

describe('bucketSql', () => {
  it('is SHA2 arithmetic on MariaDB and the registered function on SQLite', () => {
    expect(bucketSql('mysql', 'c', 9)).toEqual({
      sql: "(CONV(LEFT(SHA2(CONCAT(?, ':', c.id), 256), 8), 16, 10) % 10000)",
      params: ['9'],
    });
    expect(bucketSql('sqlite', 'c', 9)).toEqual({ sql: 'campaign_bucket(?, c.id)', params: ['9'] });
  });

  it('computes the same buckets on SQLite as bucketOf', async () => {
    const db = new DataSource({ type: 'better-sqlite3', database: ':memory:' });
    await db.initialize();
    try {
      registerSqliteFunctions((db.driver as unknown as { databaseConnection: SqliteFunctionHost }).databaseConnection);
      await db.query('CREATE TABLE customers (id INTEGER PRIMARY KEY)');
      await db.query('INSERT INTO customers (id) VALUES (1), (2), (3), (1000000), (9007199254740991)');
      const bucket = bucketSql('sqlite', 'c', 42);
      const rows: { id: number; bucket: number }[] = await db.query(
        `SELECT id, ${bucket.sql} AS bucket FROM customers c ORDER BY id`,
        bucket.params,
      );
      expect(rows.map((r) => r.bucket)).toEqual(rows.map((r) => bucketOf(42, r.id)));
      expect(rows[0].bucket).toBe(reference(42, 1));
    } finally {
      await db.destroy();
    }
  });
});
