import { appTypeOf, displayNameOf } from './metadata/derive-labels.js';
import { normalizeMysqlType } from './schema-inspector.js';

describe('schema labels', () => {
  it('renders integer types as MySQL 8 does', () => {
    expect(normalizeMysqlType('bigint(20) unsigned')).toBe('bigint unsigned');
    expect(normalizeMysqlType('int(11)')).toBe('int');
    expect(normalizeMysqlType('tinyint(1)')).toBe('tinyint(1)');
    expect(normalizeMysqlType('varchar(255)')).toBe('varchar(255)');
    expect(normalizeMysqlType('decimal(15,2)')).toBe('decimal(15,2)');
  });

  it('derives display names and application types', () => {
    expect(displayNameOf('created_at')).toBe('Created At');
    expect(displayNameOf('tenant_id')).toBe('Tenant');
    expect(displayNameOf('batch_uuid')).toBe('Batch UUID');
    const column = (name: string, db_type: string, auto = false) => ({
      name,
      db_type,
      nullable: false,
      default: null,
      auto_incrementing: auto,
    });
    expect(appTypeOf(column('id', 'bigint unsigned', true))).toBe('id');
    expect(appTypeOf(column('tenant_id', 'bigint unsigned'))).toBe('reference');
    expect(appTypeOf(column('is_active', 'tinyint(1)'))).toBe('boolean');
    expect(appTypeOf(column('budget', 'decimal(15,2)'))).toBe('decimal');
    expect(appTypeOf(column('created_at', 'timestamp'))).toBe('datetime');
    expect(appTypeOf(column('info', 'text'))).toBe('text');
    expect(appTypeOf(column('name', 'varchar(255)'))).toBe('string');
  });
});
