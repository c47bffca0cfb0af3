import { Column, PrimaryGeneratedColumn, type ColumnOptions } from 'typeorm';

/**
 * Column decorators shared by every entity. The migrations own the real column types
 * (timestamp on MySQL, datetime on SQLite); entity metadata only has to read and write them,
 * so it uses the type both drivers accept.
 */
export const IdColumn = () => PrimaryGeneratedColumn({ type: 'bigint', unsigned: true });
export const ForeignIdColumn = (options: ColumnOptions = {}) => Column({ type: 'bigint', unsigned: true, ...options });
export const TimestampColumn = (options: ColumnOptions = {}) =>
  Column({ type: 'datetime', nullable: true, ...options });

/**
 * `created_at` / `updated_at`, set by the application (the table gateways, the seeders) so both
 * databases store the same UTC instant. Entities are plain row shapes: no hooks, no methods.
 */
export abstract class Timestamped {
  @TimestampColumn({ name: 'created_at' })
  created_at: Date | null;

  @TimestampColumn({ name: 'updated_at' })
  updated_at: Date | null;
}

/** DECIMAL(precision, scale); the record mapper returns it as a JSON number. */
export const DecimalColumn = (precision: number, scale: number, options: ColumnOptions = {}) =>
  Column({
    type: 'decimal',
    precision,
    scale,
    // SQLite would keep 0.1 + 0.2 as 0.30000000000000004; store what DECIMAL(p, s) keeps on MySQL.
    transformer: {
      to: (value: unknown) => (typeof value === 'number' ? Number(value.toFixed(scale)) : value),
      from: (value: unknown) => value,
    },
    ...options,
  });

/** Free text, and "JSON string" fields, which are stored and returned byte for byte. */
export const TextColumn = (options: ColumnOptions = {}) => Column({ type: 'text', ...options });
export const StringColumn = (length = 255, options: ColumnOptions = {}) =>
  Column({ type: 'varchar', length, ...options });

/** Now, as a `timestamp` column stores it: MySQL keeps whole seconds, so every stored instant is rounded down to one. */
export function wholeSecondNow(): Date {
  return new Date(Math.floor(Date.now() / 1000) * 1000);
}
