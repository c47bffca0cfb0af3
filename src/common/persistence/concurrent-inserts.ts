/**
 * A table that many writers fill at once, a thousand rows a statement, whose indexes outgrow memory
 * (tracked events): its multi-row inserts go as INSERT statements, never as LOAD DATA (load-data.ts).
 * With innodb_autoinc_lock_mode 1 (MariaDB's default) a LOAD DATA, whose row count the server does
 * not know beforehand, holds the table's AUTO_INCREMENT lock until it ends: concurrent loads take
 * turns, each waiting for its index pages to be read from disk, where INSERTs of a known row count
 * take their ids at once and wait for their pages side by side. Four writers of 1,000-row batches
 * into a table of 2,000,000 events with the tracked events' indexes, alternating three rounds:
 * 1,234, 2,080 and 1,835 rows a second by LOAD DATA, 4,151, 4,296 and 3,711 by INSERT
 * (docs/customer-events.md).
 */
export function ConcurrentBulkInserts(): ClassDecorator {
  return (target) => {
    concurrent.add(target);
  };
}

const concurrent = new Set<unknown>();

/** Whether the entity (or a base class) is declared ConcurrentBulkInserts. */
export function insertsConcurrently(entity: unknown): boolean {
  for (let c = entity; typeof c === 'function' && c !== Function.prototype; c = Object.getPrototypeOf(c)) {
    if (concurrent.has(c)) return true;
  }
  return false;
}
