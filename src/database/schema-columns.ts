import type { QueryRunner, TableColumnOptions } from 'typeorm';

/**
 * Column builders for migrations, so that one migration serves MySQL/MariaDB and SQLite.
 * MySQL gets exactly the types the contract lists (bigint unsigned, timestamp, tinyint(1), ...);
 * SQLite gets the nearest type it understands (INTEGER PRIMARY KEY for auto-numbering).
 */
export function schemaColumns(queryRunner: QueryRunner) {
  const mysql = queryRunner.connection.driver.options.type === 'mysql';
  const nullable = (options: TableColumnOptions, isNullable?: boolean): TableColumnOptions =>
    isNullable ? { ...options, isNullable: true } : options;

  return {
    mysql,
    id: (name = 'id'): TableColumnOptions => ({
      name,
      type: mysql ? 'bigint' : 'integer',
      unsigned: mysql,
      isPrimary: true,
      isGenerated: true,
      generationStrategy: 'increment',
    }),
    bigint: (name: string, isNullable = false): TableColumnOptions =>
      nullable({ name, type: 'bigint', unsigned: mysql }, isNullable),
    string: (name: string, length = 255, isNullable = false): TableColumnOptions =>
      nullable({ name, type: 'varchar', length: String(length) }, isNullable),
    char: (name: string, length: number, isNullable = false): TableColumnOptions =>
      nullable({ name, type: mysql ? 'char' : 'varchar', length: String(length) }, isNullable),
    text: (name: string, isNullable = false): TableColumnOptions => nullable({ name, type: 'text' }, isNullable),
    longText: (name: string, isNullable = false): TableColumnOptions =>
      nullable({ name, type: mysql ? 'longtext' : 'text' }, isNullable),
    boolean: (name: string, defaultValue: boolean): TableColumnOptions => ({
      name,
      type: mysql ? 'tinyint' : 'boolean',
      length: mysql ? '1' : undefined,
      default: defaultValue ? '1' : '0',
    }),
    /** Free text and JSON strings: mediumtext holds more than the 1 MiB a request body may carry. */
    mediumText: (name: string, isNullable = false): TableColumnOptions =>
      nullable({ name, type: mysql ? 'mediumtext' : 'text' }, isNullable),
    datetime: (name: string, isNullable = false): TableColumnOptions =>
      nullable({ name, type: 'datetime' }, isNullable),
    decimal: (name: string, precision: number, scale: number, isNullable = false): TableColumnOptions =>
      nullable({ name, type: 'decimal', precision, scale }, isNullable),
    timestamp: (name: string, isNullable = true): TableColumnOptions =>
      nullable({ name, type: mysql ? 'timestamp' : 'datetime' }, isNullable),
    timestampDefaultNow: (name: string): TableColumnOptions => ({
      name,
      type: mysql ? 'timestamp' : 'datetime',
      default: 'CURRENT_TIMESTAMP',
    }),
    timestamps: (): TableColumnOptions[] => [
      { name: 'created_at', type: mysql ? 'timestamp' : 'datetime', isNullable: true },
      { name: 'updated_at', type: mysql ? 'timestamp' : 'datetime', isNullable: true },
    ],
  };
}
