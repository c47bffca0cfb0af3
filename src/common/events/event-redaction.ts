import { Inject, Injectable } from '@nestjs/common';
import type { Sql } from '../persistence/database.js';

/** Whatever keeps copies of events (the webhook log): scrubs its copies of these, in the erasure's transaction. */
export interface RedactionListener {
  /** Answers how many copies it scrubbed. */
  redacted(sql: Sql, tenantId: number, eventIds: readonly number[]): Promise<number>;
}

/** Who keeps copies of events, in order (src/side-effects.ts). */
export const REDACTION_LISTENERS = Symbol('REDACTION_LISTENERS');

/** The subject of a redaction: records of one resource of a tenant. */
export interface RedactedRecords {
  tenantId: number;
  resource: string;
  ids: readonly number[];
}

/**
 * An erasure's step through the change feed: the events about erased records become tombstones,
 * `{id, reason: "erased"}` with no changes, keeping their type, sequence and date (a follower's
 * cursor sees the same events). Their deletions are tombstones already and stay as they are.
 * The listeners of src/side-effects.ts scrub the copies they keep, in the same transaction.
 */
@Injectable()
export class EventRedaction {
  constructor(@Inject(REDACTION_LISTENERS) private readonly listeners: readonly RedactionListener[]) {}

  /**
   * Up to `limit` events about `records` after event `afterId`, by the (tenant, resource,
   * resource_id, id) index. Answers the last event looked at (null when there are no more), how
   * many changed, and how many copies the listeners scrubbed.
   */
  async redact(
    sql: Sql,
    records: RedactedRecords,
    afterId: number,
    limit: number,
  ): Promise<{ lastId: number | null; redacted: number; copies: number }> {
    const rows = await sql.query<{ id: number | string; resource_id: number | string }>(
      `SELECT id, resource_id FROM events
        WHERE tenant_id = ? AND resource = ? AND resource_id IN (${records.ids.map(() => '?').join(', ')}) AND id > ?
        ORDER BY id LIMIT ${limit}`,
      [records.tenantId, records.resource, ...records.ids, afterId],
    );
    if (rows.length === 0) return { lastId: null, redacted: 0, copies: 0 };
    let redacted = 0;
    for (const id of new Set(rows.map((row) => Number(row.resource_id)))) {
      const eventIds = rows.filter((row) => Number(row.resource_id) === id).map((row) => Number(row.id));
      const tombstone = JSON.stringify({ id, reason: 'erased' });
      const { affected } = await sql.run(
        `UPDATE events SET data = ?, changes = '[]'
          WHERE id IN (${eventIds.map(() => '?').join(', ')}) AND type <> ? AND data <> ?`,
        [tombstone, ...eventIds, `${records.resource}.deleted`, tombstone],
      );
      redacted += affected;
    }
    const eventIds = rows.map((row) => Number(row.id));
    let copies = 0;
    for (const listener of this.listeners) copies += await listener.redacted(sql, records.tenantId, eventIds);
    return { lastId: eventIds[eventIds.length - 1], redacted, copies };
  }
}
