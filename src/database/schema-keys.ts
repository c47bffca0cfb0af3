import type { TableForeignKeyOptions, TableIndexOptions } from 'typeorm';
import { listIndexName } from '../common/persistence/list-index.js';

/** A foreign key named `<table>_<column>_foreign`. */
export const foreignKey = (
  table: string,
  column: string,
  referenced: string,
  onDelete: 'RESTRICT' | 'CASCADE' | 'SET NULL',
): TableForeignKeyOptions => ({
  name: `${table}_${column}_foreign`,
  columnNames: [column],
  referencedTableName: referenced,
  referencedColumnNames: ['id'],
  onDelete,
});

/**
 * Every list reads `scope` (tenant, parent) and walks `id`, or a sort column then id; each
 * order gets its index, so a page is an index range read whatever the table's size.
 */
export const listIndexes = (table: string, scope: string[], sorts: string[]): TableIndexOptions[] => [
  { name: listIndexName(table, 'id'), columnNames: [...scope, 'id'] },
  ...sorts.map((sort) => ({ name: listIndexName(table, sort), columnNames: [...scope, sort, 'id'] })),
];
