import { Injectable, Logger } from '@nestjs/common';
import { Database, type Dialect } from './database.js';

/**
 * The ids of the `rows` rows of one multi-row INSERT whose ids are consecutive by `step`, from the
 * id the database answered: MySQL/MariaDB answer the first row's, SQLite the last one's.
 */
export function insertedIds(dialect: Dialect, insertId: number, rows: number, step: number): number[] {
  const first = dialect === 'sqlite' ? insertId - (rows - 1) * step : insertId;
  return Array.from({ length: rows }, (_, n) => first + n * step);
}

/**
 * Whether the ids of one multi-row INSERT are consecutive (spaced by the auto-increment step), so
 * that they follow from the id the database answers: always on SQLite (one writer); on
 * MySQL/MariaDB when `innodb_autoinc_lock_mode` is 0 or 1 (MariaDB's default). In mode 2 (MySQL 8's
 * default, and Galera's) they may interleave with another statement's: null, and the caller reads
 * them back by key. Asked of the server once.
 */
@Injectable()
export class InsertIds {
  private step: Promise<number | null> | undefined;

  constructor(private readonly db: Database) {}

  consecutiveStep(): Promise<number | null> {
    this.step ??= this.ask();
    return this.step;
  }

  private async ask(): Promise<number | null> {
    if (this.db.dialect === 'sqlite') return 1;
    try {
      const [row] = await this.db.query<{ mode: number | string; step: number | string }>(
        'SELECT @@innodb_autoinc_lock_mode AS mode, @@auto_increment_increment AS step',
      );
      return Number(row.mode) <= 1 ? Number(row.step) : null;
    } catch (error) {
      new Logger('InsertIds').warn(`auto-increment mode unknown, ids are read back: ${String(error)}`);
      this.step = undefined;
      return null;
    }
  }
}
