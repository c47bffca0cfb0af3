import { ValidationFailed } from '../http/api-exception.js';
import { assertCursorValue, decodeCursor, encodeCursor } from './cursor.js';
import { keysetCondition, resolveSort } from './keyset.js';

describe('cursor', () => {
  it('round-trips a position', () => {
    const position = { sort: '-created_at', value: '2026-01-01T00:00:00.000Z', id: 42 };
    expect(decodeCursor(encodeCursor(position), '-created_at')).toEqual(position);
    expect(decodeCursor(encodeCursor({ sort: '-id', id: 7 }), '-id')).toEqual({ sort: '-id', value: null, id: 7 });
  });

  it.each([
    '',
    'not base64!',
    Buffer.from('{"a":1}').toString('base64url'),
    Buffer.from('["-id",null,0]').toString('base64url'),
    Buffer.from('["-id",{},1]').toString('base64url'),
  ])('rejects %p with a 422 on cursor', (cursor) => {
    expect(() => decodeCursor(cursor, '-id')).toThrow(ValidationFailed);
  });

  it('rejects a cursor made for another sort order', () => {
    const cursor = encodeCursor({ sort: 'name', value: 'a', id: 1 });
    expect(() => decodeCursor(cursor, '-name')).toThrow(/different sort/);
  });
});

describe('resolveSort', () => {
  const fields = { name: 'string', created_at: 'date' } as const;
  it('defaults to newest first', () => {
    expect(resolveSort(undefined, fields)).toEqual({
      key: '-id',
      field: 'id',
      type: 'number',
      nullable: false,
      direction: 'DESC',
    });
  });
  it('reads ascending and descending fields', () => {
    expect(resolveSort('name', fields)).toMatchObject({ field: 'name', direction: 'ASC', type: 'string' });
    expect(resolveSort('-created_at', fields)).toMatchObject({ field: 'created_at', direction: 'DESC', type: 'date' });
  });
  it('rejects unknown fields', () => {
    expect(() => resolveSort('password', fields)).toThrow(ValidationFailed);
    expect(() => resolveSort('--name', fields)).toThrow(ValidationFailed);
  });
});

describe('keysetCondition', () => {
  const sort = (direction: 'ASC' | 'DESC') => ({
    key: 'x',
    field: 'last_name',
    type: 'string' as const,
    nullable: true,
    direction,
  });

  it('walks past equal values by id, ascending and descending', () => {
    expect(keysetCondition('c.last_name', 'c.id', sort('ASC'), { sort: 'x', value: 'Smith', id: 7 })).toEqual({
      sql: '(c.last_name > ? OR (c.last_name = ? AND c.id > ?))',
      params: ['Smith', 'Smith', 7],
    });
    expect(keysetCondition('c.last_name', 'c.id', sort('DESC'), { sort: 'x', value: 'Smith', id: 7 })).toEqual({
      sql: '((c.last_name < ? OR (c.last_name = ? AND c.id < ?)) OR c.last_name IS NULL)',
      params: ['Smith', 'Smith', 7],
    });
  });

  it('places NULLs first ascending and last descending', () => {
    expect(keysetCondition('c.last_name', 'c.id', sort('ASC'), { sort: 'x', value: null, id: 7 })).toEqual({
      sql: '((c.last_name IS NULL AND c.id > ?) OR c.last_name IS NOT NULL)',
      params: [7],
    });
    expect(keysetCondition('c.last_name', 'c.id', sort('DESC'), { sort: 'x', value: null, id: 7 })).toEqual({
      sql: '(c.last_name IS NULL AND c.id < ?)',
      params: [7],
    });
  });

  it('binds date cursors as dates', () => {
    const { params } = keysetCondition(
      'c.created_at',
      'c.id',
      { ...sort('ASC'), type: 'date' },
      { sort: 'x', value: '2026-01-01T00:00:00.000Z', id: 1 },
    );
    expect(params[0]).toEqual(new Date('2026-01-01T00:00:00.000Z'));
  });

  it('compares ids alone when sorting by id', () => {
    expect(
      keysetCondition('c.id', 'c.id', { ...sort('DESC'), field: 'id', type: 'number' }, { sort: '-id', id: 9 }),
    ).toEqual({
      sql: 'c.id < ?',
      params: [9],
    });
  });
});

describe('assertCursorValue', () => {
  it('accepts values of the sort kind only', () => {
    expect(() => assertCursorValue('2026-01-01T00:00:00.000Z', 'date', false)).not.toThrow();
    expect(() => assertCursorValue('garbage', 'date', false)).toThrow(ValidationFailed);
    expect(() => assertCursorValue(12, 'date', false)).toThrow(ValidationFailed);
    expect(() => assertCursorValue('abc', 'number', false)).toThrow(ValidationFailed);
    expect(() => assertCursorValue(null, 'string', false)).toThrow(ValidationFailed);
    expect(() => assertCursorValue(null, 'string', true)).not.toThrow();
  });
});
