import { limitColumn, limitsOf, LIMIT_NAMES, UNLIMITED } from './tenant-limits.js';

describe('limitsOf', () => {
  it.each(LIMIT_NAMES)('reads the %s limit from its own column, as a number', (name) => {
    expect(limitsOf({ [limitColumn(name)]: '5' })).toEqual({ ...UNLIMITED, [name]: 5 });
  });

  it('gives null (unlimited) for a null or absent column, and every limit it knows', () => {
    const limits = limitsOf({ limit_customers: null });
    expect(limits).toEqual(UNLIMITED);
    expect(Object.keys(limits).sort()).toEqual([...LIMIT_NAMES].sort());
  });
});
