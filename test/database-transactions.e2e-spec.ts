import { DataSource } from 'typeorm';
import { createTestApp, type TestApp } from './support/test-app.js';

describe('transactions', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  // The embedded SQLite database has one connection: overlapping transactions must wait their turn
  // rather than fail with "cannot start a transaction within a transaction".
  it('runs overlapping transactions one after another, each committing its own work', async () => {
    const dataSource = t.app.get(DataSource);
    const names = Array.from({ length: 12 }, (_, i) => `overlap-${i}`);
    const results = await Promise.allSettled(
      names.map((name, i) =>
        dataSource.transaction(async (manager) => {
          await manager.query('SELECT 1');
          await new Promise((resolve) => setTimeout(resolve, 5 + (i % 3)));
          await manager.createQueryBuilder().insert().into('tenants').values({ name, is_active: true }).execute();
          if (i === 5) throw new Error('rolled back on purpose');
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(names.map((_, i) => (i === 5 ? 'rejected' : 'fulfilled')));
    const stored: { name: string }[] = await dataSource.query("SELECT name FROM tenants WHERE name LIKE 'overlap-%'");
    expect(stored.map((row) => row.name).sort()).toEqual(names.filter((_, i) => i !== 5).sort());
  });
});
