import fc from 'fast-check';
import type { EntityMetadata } from 'typeorm';
import { TableSpec } from './table-spec.js';

interface ColumnShape {
  name: string;
  type: unknown;
}

/** The parts of TypeORM's metadata TableSpec reads, for a table of `columns`. */
function metadataOf(columns: readonly ColumnShape[]): EntityMetadata {
  return {
    tableName: 'things',
    name: 'Thing',
    target: class Thing {},
    deleteDateColumn: undefined,
    columns: columns.map(({ name, type }) => ({
      databaseName: name,
      type,
      isGenerated: name === 'id',
      isPrimary: name === 'id',
      default: undefined,
    })),
  } as unknown as EntityMetadata;
}

const THING = [
  { name: 'id', type: 'bigint' },
  { name: 'price', type: 'decimal' },
  { name: 'is_active', type: Boolean },
  { name: 'created_at', type: 'timestamp' },
  { name: 'label', type: 'varchar' },
];

describe('TableSpec.normalize', () => {
  const spec = new TableSpec(metadataOf(THING));

  it('gives numbers, booleans and dates whatever the driver gave, null for a missing column, and drops unknown ones', () => {
    const entity = spec.normalize({
      id: '42',
      price: '9.50',
      is_active: 1,
      created_at: '2026-11-28 02:00:00',
      stray: 'from a join',
    });
    expect(entity).toEqual({
      id: 42,
      price: 9.5,
      is_active: true,
      created_at: new Date('2026-11-28T02:00:00Z'),
      label: null,
    });
    expect(Object.keys(entity)).toEqual(['id', 'price', 'is_active', 'created_at', 'label']);
  });

  it('keeps nulls null and text as it is', () => {
    expect(
      spec.normalize({ id: 1, price: null, is_active: 0, created_at: null, label: 'a "quoted" \\ label' }),
    ).toEqual({
      id: 1,
      price: null,
      is_active: false,
      created_at: null,
      label: 'a "quoted" \\ label',
    });
  });

  it('reads any column name, quotes and backslashes included (names are written as string literals)', () => {
    const odd = new TableSpec(
      metadataOf([
        { name: 'id', type: 'int' },
        { name: 'a"b', type: 'varchar' },
        { name: 'c\\d', type: 'int' },
        { name: '__proto__x', type: 'varchar' },
      ]),
    );
    expect(odd.normalize({ id: 1, 'a"b': 'x', 'c\\d': '7', __proto__x: 'y' })).toEqual({
      id: 1,
      'a"b': 'x',
      'c\\d': 7,
      __proto__x: 'y',
    });
  });

  it('answers what a column-by-column copy answers, for any row', () => {
    const reference = (row: Record<string, unknown>) => {
      const entity: Record<string, unknown> = {};
      for (const { name } of THING) entity[name] = row[name] === undefined ? null : row[name];
      if (entity.id !== null) entity.id = Number(entity.id);
      if (entity.price !== null) entity.price = Number(entity.price);
      if (entity.is_active !== null) entity.is_active = Boolean(Number(entity.is_active));
      return entity;
    };
    const value = fc.oneof(fc.constant(null), fc.constant(undefined), fc.integer(), fc.string());
    fc.assert(
      fc.property(fc.record({ id: value, price: value, is_active: value, label: value }), (row) => {
        expect(spec.normalize({ ...row, created_at: null })).toEqual({ ...reference(row), created_at: null });
      }),
    );
  });
});
