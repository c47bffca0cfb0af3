import { encodeCursor } from '../../common/persistence/cursor.js';
import { denseAboveFloor, idRanges, memberPageRequest } from './customer-scan.js';
import { IdFloors } from './id-floors.js';
import { SCAN_SLOTS, ScanSlots } from './scan-slots.js';

describe('idRanges', () => {
  it('reads a small span in one range, open at the top', () => {
    expect(idRanges(500, 20_000)).toEqual([[500, null]]);
    expect(idRanges(7, 7)).toEqual([[7, null]]);
  });

  it('splits a large span into at most four adjoining ranges covering every id from the first', () => {
    const ranges = idRanges(716_669, 1_050_000);
    expect(ranges).toHaveLength(4);
    expect(ranges[0][0]).toBe(716_669);
    expect(ranges[ranges.length - 1][1]).toBeNull();
    ranges.slice(1).forEach(([from], i) => expect(from).toBe(ranges[i][1]));
    expect(ranges[2][1]).toBeLessThanOrEqual(1_050_000);
    expect(idRanges(1, 10_000_000)).toHaveLength(4);
    expect(idRanges(1, 150_000)).toHaveLength(2);
  });
});

describe('denseAboveFloor', () => {
  const range = (floor: number, maxId: number, candidates: number) => ({
    since: '2026-01-01 00:00:00',
    floor,
    maxId,
    candidates,
  });

  it('is true when the ids above the floor are mostly candidates', () => {
    expect(denseAboveFloor(range(716_669, 1_050_000, 333_332))).toBe(true);
    expect(denseAboveFloor(range(1, 1_000_000, 300_000))).toBe(false);
    expect(denseAboveFloor(range(11, 10, 0))).toBe(false);
  });
});

describe('memberPageRequest', () => {
  it('reads limit, sort (-id or id) and with_total', () => {
    expect(memberPageRequest({})).toEqual({
      limit: 25,
      direction: 'DESC',
      sortKey: '-id',
      floor: null,
      withTotal: false,
    });
    expect(memberPageRequest({ limit: 3, sort: 'id', with_total: true })).toMatchObject({
      limit: 3,
      direction: 'ASC',
      sortKey: 'id',
      withTotal: true,
    });
    expect(() => memberPageRequest({ sort: 'name' })).toThrow();
  });

  it('takes the id floor back from the cursor, and refuses anything else in its place', () => {
    const cursor = (value: string | number | null, sort = '-id') => encodeCursor({ sort, value, id: 40 });
    expect(memberPageRequest({ cursor: cursor('12@2026-01-02 03:04:05') })).toMatchObject({
      after: 40,
      floor: { id: 12, since: '2026-01-02 03:04:05' },
    });
    expect(memberPageRequest({ cursor: cursor(null) })).toMatchObject({ after: 40, floor: null });
    for (const value of ['12', 12, '0@2026-01-02 03:04:05', '12@2026-01-02', '12@2026-01-02 03:04:05x']) {
      expect(() => memberPageRequest({ cursor: cursor(value) })).toThrow('The cursor is invalid.');
    }
    expect(() => memberPageRequest({ cursor: cursor(null, 'id') })).toThrow();
  });
});

describe('IdFloors', () => {
  const at = (since: string, floor: number) => ({ since, floor, candidates: 10, maxId: 100 });

  it('answers the latest known range at or before `since`, within a day, per tenant', () => {
    const floors = new IdFloors();
    floors.remember(1, at('2026-01-01 00:00:00', 5));
    floors.remember(1, at('2026-01-01 06:00:00', 9));
    floors.remember(2, at('2026-01-01 06:00:00', 50));
    expect(floors.find(1, '2026-01-01 07:00:00')?.floor).toBe(9);
    expect(floors.find(1, '2026-01-01 03:00:00')?.floor).toBe(5);
    // A floor is no floor for an earlier `since`, and too loose a day later.
    expect(floors.find(1, '2025-12-31 23:59:59')).toBeUndefined();
    expect(floors.find(1, '2026-01-02 06:00:01')).toBeUndefined();
    expect(floors.find(3, '2026-01-01 07:00:00')).toBeUndefined();
  });

  it('forgets ranges after ten minutes', () => {
    const floors = new IdFloors();
    const now = jest.spyOn(Date, 'now').mockReturnValue(Date.parse('2026-03-01T00:00:00Z'));
    try {
      floors.remember(1, at('2026-02-28 12:00:00', 5));
      now.mockReturnValue(Date.parse('2026-03-01T00:09:59Z'));
      expect(floors.find(1, '2026-02-28 12:00:00')?.floor).toBe(5);
      now.mockReturnValue(Date.parse('2026-03-01T00:10:01Z'));
      expect(floors.find(1, '2026-02-28 12:00:00')).toBeUndefined();
    } finally {
      now.mockRestore();
    }
  });
});

describe('ScanSlots', () => {
  it(`runs at most ${SCAN_SLOTS} statements at once, in arrival order, and frees a slot on failure`, async () => {
    const slots = new ScanSlots();
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const work = (n: number) =>
      slots.run(async () => {
        running++;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running--;
        order.push(n);
        if (n === 2) throw new Error('failed');
        return n;
      });
    const results = await Promise.allSettled(Array.from({ length: 10 }, (_, n) => work(n)));
    expect(most).toBe(SCAN_SLOTS);
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(1);
    expect(order.slice(SCAN_SLOTS)).toEqual([4, 5, 6, 7, 8, 9]);
    expect(await slots.run(async () => 'free again')).toBe('free again');
  });
});
