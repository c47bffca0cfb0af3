import { insertStatement, slices } from './rows-insert.js';

describe('insertStatement', () => {
  const columns = ['a', 'b'] as const;

  it('writes one placeholder group per row and the values row by row', () => {
    expect(insertStatement({ table: 't', columns, rows: [[1, 'x']] })).toEqual({
      sql: 'INSERT INTO `t` (`a`, `b`) VALUES (?, ?)',
      params: [1, 'x'],
    });
    expect(
      insertStatement({
        table: 't',
        columns,
        rows: [
          [1, 'x'],
          [2, null],
          [3, 'z'],
        ],
      }),
    ).toEqual({ sql: 'INSERT INTO `t` (`a`, `b`) VALUES (?, ?), (?, ?), (?, ?)', params: [1, 'x', 2, null, 3, 'z'] });
  });

  it('names the table of each call, also for a columns list used with another table before', () => {
    insertStatement({ table: 'first', columns, rows: [[1, 2]] });
    expect(insertStatement({ table: 'second', columns, rows: [[1, 2]] }).sql).toBe(
      'INSERT INTO `second` (`a`, `b`) VALUES (?, ?)',
    );
    expect(insertStatement({ table: 'first', columns, rows: [[1, 2]] }).sql).toBe(
      'INSERT INTO `first` (`a`, `b`) VALUES (?, ?)',
    );
  });
});

describe('slices', () => {
  it('cuts rows into slices of at most the size, in order', () => {
    expect(slices([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(slices([], 3)).toEqual([]);
  });
});
