import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';

export interface ColumnInfo {
  name: string;
  db_type: string;
  nullable: boolean;
  default: string | null;
  auto_incrementing: boolean;
}

export interface TableInfo {
  table_name: string;
  columns: ColumnInfo[];
}

interface MysqlColumnRow {
  table_name: string;
  column_name: string;
  column_type: string;
  is_nullable: string;
  column_default: string | null;
  extra: string;
}

interface SqliteColumnRow {
  table_name: string;
  table_sql: string;
  name: string;
  type: string;
  notnull: number;
  dflt_value: string | null;
  pk: number;
}

/**
 * MySQL 8 reports integer types without the deprecated display width, except tinyint(1)
 * (the boolean); the contract's schema listing follows that rendering, so MariaDB's
 * `bigint(20) unsigned` is reported as `bigint unsigned`.
 */
export function normalizeMysqlType(columnType: string): string {
  const lower = columnType.toLowerCase();
  if (lower.startsWith('tinyint(1)')) return lower;
  return lower.replace(/^(tinyint|smallint|mediumint|int|integer|bigint)\(\d+\)/, '$1');
}

/** Reads the live schema from the database's own catalogue, one query per call. */
@Injectable()
export class SchemaInspector {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  get connection(): 'mysql' | 'sqlite' {
    return this.dataSource.options.type === 'mysql' ? 'mysql' : 'sqlite';
  }

  async tables(): Promise<TableInfo[]> {
    return this.connection === 'mysql' ? this.mysqlTables() : this.sqliteTables();
  }

  private async mysqlTables(): Promise<TableInfo[]> {
    const rows: MysqlColumnRow[] = await this.dataSource.query(
      `SELECT c.TABLE_NAME AS table_name, c.COLUMN_NAME AS column_name, c.COLUMN_TYPE AS column_type,
              c.IS_NULLABLE AS is_nullable, c.COLUMN_DEFAULT AS column_default, c.EXTRA AS extra
         FROM information_schema.COLUMNS c
         JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME
        WHERE c.TABLE_SCHEMA = DATABASE() AND t.TABLE_TYPE = 'BASE TABLE'
        ORDER BY c.TABLE_NAME, c.ORDINAL_POSITION`,
    );
    return group(rows, (row) => ({
      table: row.table_name,
      column: {
        name: row.column_name,
        db_type: normalizeMysqlType(row.column_type),
        nullable: row.is_nullable === 'YES',
        default: row.column_default,
        auto_incrementing: /auto_increment/i.test(row.extra),
      },
    }));
  }

  private async sqliteTables(): Promise<TableInfo[]> {
    const rows: SqliteColumnRow[] = await this.dataSource.query(
      `SELECT m.name AS table_name, m.sql AS table_sql, p.name, p.type, p."notnull", p.dflt_value, p.pk
         FROM sqlite_master m JOIN pragma_table_info(m.name) p
        WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'
        ORDER BY m.name, p.cid`,
    );
    return group(rows, (row) => {
      const nullable = row.notnull === 0 && row.pk === 0;
      return {
        table: row.table_name,
        column: {
          name: row.name,
          db_type: row.type.toLowerCase(),
          nullable,
          default: row.dflt_value ?? (nullable ? 'NULL' : null),
          auto_incrementing: row.pk === 1 && /AUTOINCREMENT/i.test(row.table_sql),
        },
      };
    });
  }
}

function group<R>(rows: R[], split: (row: R) => { table: string; column: ColumnInfo }): TableInfo[] {
  const tables = new Map<string, TableInfo>();
  for (const row of rows) {
    const { table, column } = split(row);
    let entry = tables.get(table);
    if (!entry) tables.set(table, (entry = { table_name: table, columns: [] }));
    entry.columns.push(column);
  }
  return [...tables.values()];
}
