import { Global, Module, type Type } from '@nestjs/common';
import { ChangeFeed } from './common/events/change-feed.js';
import { REDACTION_LISTENERS, type RedactionListener } from './common/events/event-redaction.js';
import { NUMBERING_EFFECTS, type NumberingListener } from './common/events/event-sequencer.js';
import type { ChangeRecorder } from './common/persistence/journal.js';
import { CHANGE_RECORDERS } from './common/persistence/tables.js';
import { RecordCaps } from './common/usage/record-caps.js';
import { AttemptRedaction } from './modules/webhooks/delivery/attempt-redaction.js';
import { FANOUT_QUEUE } from './modules/webhooks/delivery/webhook-fanout.js';
import { WebhooksModule } from './modules/webhooks/webhooks.module.js';

/**
 * Everything a committed write causes, in the order it happens, and where each part runs. This
 * file is the only place an effect is wired (src/side-effects.spec.ts fails when one is wired
 * anywhere else): a write's code calls none of them, the tables record its changes and the steps
 * below follow.
 *
 * | # | When                                      | What                                                        | Who                                  |
 * | - | ----------------------------------------- | ----------------------------------------------------------- | ------------------------------------ |
 * | 1 | in the write's transaction, as it writes  | each change recorded (tables stamp and journal every verb)  | TableGateway → Journal               |
 * | 2 | in the transaction, at its end            | the activity log: one entry per change                      | Journal.flush                        |
 * | 3 | in the transaction, at its end            | the plan's counts, under a limit (a 403 past it); 80/100 %   | CHANGE_RECORDER_LIST: RecordCaps     |
 * | 4 | in the transaction, at its end            | the change feed's event rows (a bulk write numbers its own) | CHANGE_RECORDER_LIST: ChangeFeed     |
 * | 5 | in the transaction, by the service        | the Idempotency-Key's answer                                | TenantTx.keepAnswer                  |
 * | 6 | after commit                              | a numbering pass, within 25 ms                              | ChangeFeed.committed → EventSequencer |
 * | 7 | in the numbering pass (the numbering lock) | each event's sequence; the plan's counts folded (bookkeeping only) | NUMBERING_LISTENER_LIST: RecordCaps |
 * | 8 | after the pass                            | the feed's followers made due                               | FEED_FOLLOWER_QUEUES                 |
 * | 9 | in the background (src/background-work.ts) | webhook fan-out: a delivery and its job per endpoint; then the deliveries | WebhookFanout, DeliveryQueue |
 *
 * And when an erasure redacts a customer's events (ErasureProcessor → EventRedaction), in its
 * transaction: the copies kept elsewhere are scrubbed (REDACTION_LISTENER_LIST).
 */

/** Step 3 then 4: the caps first, so that a threshold they announce is published by the feed with the write. */
export const CHANGE_RECORDER_LIST: Type<ChangeRecorder>[] = [RecordCaps, ChangeFeed];

/** Step 7: in the numbering pass's transaction, under the cluster-wide numbering lock. Bookkeeping only. */
export const NUMBERING_LISTENER_LIST: Type<NumberingListener>[] = [RecordCaps];

/** Step 8: recurring queues that follow the feed (FeedFollower), made due once a pass has numbered events. */
export const FEED_FOLLOWER_QUEUES: readonly string[] = [FANOUT_QUEUE];

/** Copies of events kept elsewhere, scrubbed with an erasure's redaction. */
export const REDACTION_LISTENER_LIST: Type<RedactionListener>[] = [AttemptRedaction];

const list = <T>(...items: T[]): T[] => items;

/** The effects above, as the tables, the sequencer and the redaction take them. */
@Global()
@Module({
  imports: [WebhooksModule],
  providers: [
    { provide: CHANGE_RECORDERS, useFactory: list, inject: CHANGE_RECORDER_LIST },
    {
      provide: NUMBERING_EFFECTS,
      useFactory: (...listeners: NumberingListener[]) => ({ listeners, followers: FEED_FOLLOWER_QUEUES }),
      inject: NUMBERING_LISTENER_LIST,
    },
    { provide: REDACTION_LISTENERS, useFactory: list, inject: REDACTION_LISTENER_LIST },
  ],
  exports: [CHANGE_RECORDERS, NUMBERING_EFFECTS, REDACTION_LISTENERS],
})
export class SideEffectsModule {}
