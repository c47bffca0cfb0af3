import { ValidationFailed } from '../http/api-exception.js';
import { decodeCursor, encodeCursor } from './cursor.js';
import { resolveSort } from './keyset-paginator.js';

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
    expect(resolveSort(undefined, fields)).toEqual({ key: '-id', field: 'id', type: 'number', direction: 'DESC' });
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
