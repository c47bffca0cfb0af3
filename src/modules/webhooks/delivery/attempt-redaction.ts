import { Injectable } from '@nestjs/common';
import type { RedactionListener } from '../../../common/events/event-redaction.js';
import type { Sql } from '../../../common/persistence/sql.js';

/**
 * The webhook log's part of an erasure: a delivery's payload is the event as the feed holds it
 * (redacted with it), and what a receiver answered to an event about an erased record may echo
 * it, so those answers' bodies are dropped.
 */
@Injectable()
export class AttemptRedaction implements RedactionListener {
  async redacted(sql: Sql, _tenantId: number, eventIds: readonly number[]): Promise<number> {
    const { affected } = await sql.run(
      `UPDATE webhook_attempts SET response_body = NULL
        WHERE response_body IS NOT NULL AND delivery_id IN (
          SELECT id FROM webhook_deliveries WHERE event_id IN (${eventIds.map(() => '?').join(', ')}))`,
      eventIds,
    );
    return affected;
  }
}
