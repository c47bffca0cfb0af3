import { Injectable } from '@nestjs/common';
import { Readable } from 'node:stream';
import { ActivityLog } from '../../../common/activity/activity-log.entity.js';
import type { AuthContext } from '../../../common/auth/auth-context.js';
import type { FeedEvent } from '../../../common/events/change-feed.js';
import { EventSequencer } from '../../../common/events/event-sequencer.js';
import { FeedReads, toFeedEvent } from '../../../common/events/feed-reads.js';
import { RecordNotFound } from '../../../common/http/api-exception.js';
import type { SqlValue } from '../../../common/persistence/sql.js';
import { quote } from '../../../common/persistence/table-gateway.js';
import { Tables, type TenantReads } from '../../../common/persistence/tables.js';
import { toActivityLogResponse, type ActivityLogResponse } from '../../admin/dto/activity-log.dto.js';
import { CUSTOMER_ALIAS, audienceSelections } from '../../audience/audience-selection.js';
import { Audience } from '../../audience/entities/audience.entity.js';
import { DEFAULT_MATCH, isMatchMode } from '../../audience/rules/rule-grammar.js';
import { TreatmentAssignmentsService } from '../../audience/treatment-assignments.service.js';
import { toCustomerResponse } from '../../customer/dto/customer.response.js';
import { Customer } from '../../customer/entities/customer.entity.js';
import { historyIds } from '../../customer/merge/merge-history.js';
import { Campaign } from '../../marketing/entities/campaign.entity.js';
import { CustomerEventsService } from '../../tracking/customer-events.service.js';
import type { CustomerEventResponse } from '../../tracking/dto/customer-event.dto.js';
import { CustomerEvent } from '../../tracking/entities/customer-event.entity.js';
import {
  toHandoverAudience,
  toHandoverTreatmentGroup,
  type HandoverAudience,
  type HandoverTreatmentGroup,
} from '../dto/customer-handover.response.js';

/** The answer's envelope, as every GET answers it (API-CONVENTIONS §2), written by hand around the stream. */
const ENVELOPE_HEAD = '{"code":200,"message":"Retrieved successfully.","data":{';
const ENVELOPE_TAIL = '}}';

/** Audiences evaluated by one statement, one CASE column each. */
const AUDIENCES_PER_STATEMENT = 50;
/** Campaigns listed per read (each then answers its assignment). */
const CAMPAIGNS_PER_READ = 100;
/** The change feed's name of a customer (`resource`). */
const CUSTOMER_RESOURCE = 'customer';
/** The index that holds one subject's history in id order (named on MySQL/MariaDB, as the lists do). */
const ACTIVITY_SUBJECT_INDEX = 'activity_log_tenant_subject_index';

/** One branch of a history read: the rows about one subject id after `after`, in id order. */
type HistoryBranch = (subjectId: number, after: number, limit: number) => { sql: string; params: SqlValue[] };

/**
 * `GET /api/customers/{id}/export`: what the service holds about one customer (GDPR Art. 15 and
 * 20), as one JSON document in the success envelope: the record, the audiences that select it,
 * its treatment group in every campaign, and its whole history in the activity log and the change
 * feed. Streamed: each part is read in batches, each batch only when the client has taken the
 * previous one (the stream's back-pressure), so memory stays flat however long the history.
 */
@Injectable()
export class CustomerHandoverService {
  /** Rows per keyset read of the activity log and of the change feed. */
  historyRows = 1000;

  constructor(
    private readonly tables: Tables,
    private readonly assignments: TreatmentAssignmentsService,
    private readonly sequencer: EventSequencer,
    private readonly feed: FeedReads,
    private readonly trackedEvents: CustomerEventsService,
  ) {}

  /** The document, ready to stream; 404 (before anything is sent) when the tenant has no such customer. */
  async export(auth: AuthContext, customerId: number): Promise<Readable> {
    const reads = this.tables.read(auth);
    const customer = await reads.table(Customer).findById(customerId);
    if (!customer) throw new RecordNotFound('customer');
    const subjectIds = await historyIds(reads, customer.id);
    // As a feed read does: the events of every write committed before now are numbered, so they are read.
    await this.sequencer.catchUp();
    return Readable.from(this.document(reads, customer, subjectIds), {
      objectMode: false,
      highWaterMark: 64 * 1024,
    });
  }

  private async *document(reads: TenantReads, customer: Customer, subjectIds: number[]): AsyncGenerator<string> {
    yield `${ENVELOPE_HEAD}"customer":${JSON.stringify(toCustomerResponse(customer))}`;
    yield* jsonArray('audiences', this.audiences(reads, customer.id, new Date()));
    yield* jsonArray('treatment_groups', this.treatmentGroups(reads, customer.id));
    yield* jsonArray('activity', this.activity(reads, subjectIds));
    yield* jsonArray('events', this.events(reads, subjectIds));
    yield* jsonArray('customer_events', this.customerEvents(reads, customer.id));
    yield ENVELOPE_TAIL;
  }

  /**
   * The audiences whose rules select the customer at `now`, by id: for each batch of audiences,
   * their selections are evaluated for this one customer in one statement (a selection that cannot
   * be evaluated selects nobody, as a member list does).
   */
  private async *audiences(reads: TenantReads, customerId: number, now: Date): AsyncGenerator<HandoverAudience[]> {
    const [audiences, customers] = [reads.table(Audience), reads.table(Customer)];
    const a = quote(audiences.spec.table);
    const c = CUSTOMER_ALIAS;
    const [audienceScope, customerScope] = [audiences.scope(a), customers.scope(c)];
    let after = 0;
    for (;;) {
      const rows = await reads.select<{ id: number | string; name: string; match: string }>(
        `SELECT ${a}.id AS id, ${a}.name AS name, ${a}.${quote('match')} AS ${quote('match')} FROM ${a}
          WHERE ${audienceScope.sql} AND ${a}.id > ? ORDER BY ${a}.id LIMIT ${AUDIENCES_PER_STATEMENT}`,
        [...audienceScope.params, after],
      );
      if (rows.length === 0) return;
      const batch = rows.map((row) => ({
        id: Number(row.id),
        name: row.name,
        match: isMatchMode(row.match) ? row.match : DEFAULT_MATCH,
      }));
      const selections = await audienceSelections(reads, batch, now);
      const evaluable = batch.filter((audience) => selections.get(audience.id)!.evaluable);
      if (evaluable.length > 0) {
        const filters = evaluable.map((audience) => selections.get(audience.id)!.filter);
        const [selected] = await reads.select<Record<string, number | string>>(
          `SELECT ${filters.map((filter, i) => `CASE WHEN ${filter.sql} THEN 1 ELSE 0 END AS a${i}`).join(', ')}
             FROM ${quote(customers.spec.table)} ${c} WHERE ${c}.id = ? AND ${customerScope.sql}`,
          [...filters.flatMap((filter) => filter.params), customerId, ...customerScope.params],
        );
        // No row: the customer was deleted since the export began; it is in no audience.
        if (selected) yield evaluable.filter((_, i) => Number(selected[`a${i}`]) === 1).map(toHandoverAudience);
      }
      if (rows.length < AUDIENCES_PER_STATEMENT) return;
      after = batch[batch.length - 1].id;
    }
  }

  /** The customer's eligibility and treatment group in every campaign of the tenant, by campaign id. */
  private async *treatmentGroups(reads: TenantReads, customerId: number): AsyncGenerator<HandoverTreatmentGroup[]> {
    const campaigns = reads.table(Campaign);
    const k = quote(campaigns.spec.table);
    const scope = campaigns.scope(k);
    let after = 0;
    for (;;) {
      const rows = await reads.select<{ id: number | string }>(
        `SELECT ${k}.id AS id FROM ${k} WHERE ${scope.sql} AND ${k}.id > ? ORDER BY ${k}.id LIMIT ${CAMPAIGNS_PER_READ}`,
        [...scope.params, after],
      );
      const ids = rows.map((row) => Number(row.id));
      const batch: HandoverTreatmentGroup[] = [];
      for (const campaignId of ids) {
        const assignment = await this.assignmentIn(reads, campaignId, customerId);
        if (assignment) batch.push(toHandoverTreatmentGroup(assignment));
      }
      if (batch.length > 0) yield batch;
      if (ids.length < CAMPAIGNS_PER_READ) return;
      after = ids[ids.length - 1];
    }
  }

  /**
   * The assignment `GET /api/campaigns/{id}/assignments/{customer_id}` answers; undefined when the
   * campaign was deleted since it was listed.
   */
  private async assignmentIn(reads: TenantReads, campaignId: number, customerId: number) {
    try {
      return await this.assignments.assignment(reads.auth, campaignId, customerId);
    } catch (error) {
      if (error instanceof RecordNotFound && !(await reads.table(Campaign).exists({ id: campaignId })))
        return undefined;
      throw error;
    }
  }

  /** Every activity-log entry about the subject ids, oldest first. */
  private activity(reads: TenantReads, subjectIds: number[]): AsyncGenerator<ActivityLogResponse[]> {
    const log = reads.table(ActivityLog);
    const t = quote(log.spec.table);
    const scope = log.scope(t);
    const subjectType = reads.table(Customer).spec.entityName;
    const hint = reads.dialect === 'mysql' ? ` FORCE INDEX (${ACTIVITY_SUBJECT_INDEX})` : '';
    return this.history(
      reads,
      subjectIds,
      (subjectId, after, limit) => ({
        sql: `SELECT ${log.spec.selectList(t)} FROM ${t}${hint}
               WHERE ${scope.sql} AND ${t}.subject_type = ? AND ${t}.subject_id = ? AND ${t}.id > ?
               ORDER BY ${t}.id LIMIT ${limit}`,
        params: [...scope.params, subjectType, subjectId, after],
      }),
      (row) => toActivityLogResponse(log.spec.normalize(row)),
    );
  }

  /** Every numbered change-feed event about the subject ids, oldest first (a record's events are in id order). */
  private async *events(reads: TenantReads, subjectIds: number[]): AsyncGenerator<FeedEvent[]> {
    for (let after = 0; ;) {
      const rows = await this.feed.ofRecords(
        reads.auth.tenantId,
        CUSTOMER_RESOURCE,
        subjectIds,
        after,
        this.historyRows,
      );
      if (rows.length === 0) return;
      yield rows.map(toFeedEvent);
      if (rows.length < this.historyRows) return;
      after = Number(rows[rows.length - 1].id);
    }
  }

  /**
   * Every tracked event of the customer, oldest first (a merge moved the merged customers' events
   * to it), as `GET /api/customer-events/{id}` answers each: keyset batches along the customer index.
   */
  private async *customerEvents(reads: TenantReads, customerId: number): AsyncGenerator<CustomerEventResponse[]> {
    const events = reads.table(CustomerEvent);
    const e = quote(events.spec.table);
    const limit = this.historyRows;
    for (let after: { at: number; id: number } | null = null; ;) {
      const conditions = [{ sql: `${e}.customer_id = ?`, params: [customerId] }];
      if (after) {
        conditions.push({
          sql: `(${e}.occurred_at > ? OR (${e}.occurred_at = ? AND ${e}.id > ?))`,
          params: [after.at, after.at, after.id],
        });
      }
      const rows = await events.findBatch(conditions, { limit, orderBy: ['customer_id', 'occurred_at', 'id'] });
      if (rows.length === 0) return;
      yield await this.trackedEvents.respond(reads, rows);
      if (rows.length < limit) return;
      const last = rows[rows.length - 1];
      after = { at: last.occurred_at, id: last.id };
    }
  }

  /**
   * The rows of one history about any of the subject ids, in id order, in keyset batches of
   * `historyRows`. Each subject id reads its own index in order (one branch each); several are
   * merged by one UNION ALL, which takes the first batch of the branches' first batches.
   */
  private async *history<T>(
    reads: TenantReads,
    subjectIds: number[],
    branch: HistoryBranch,
    present: (row: Record<string, unknown>) => T,
  ): AsyncGenerator<T[]> {
    const ids = [...new Set(subjectIds)];
    const limit = this.historyRows;
    let after = 0;
    for (;;) {
      const branches = ids.map((id) => branch(id, after, limit));
      const statement =
        branches.length === 1
          ? branches[0].sql
          : `${branches.map((b, i) => `SELECT * FROM (${b.sql}) h${i}`).join(' UNION ALL ')} ORDER BY id LIMIT ${limit}`;
      const rows = await reads.select<Record<string, unknown>>(
        statement,
        branches.flatMap((b) => b.params),
      );
      if (rows.length === 0) return;
      yield rows.map(present);
      if (rows.length < limit) return;
      after = Number(rows[rows.length - 1].id);
    }
  }
}

/** `,"name":[...]`: the items of every batch, as JSON, one chunk of text per batch. */
async function* jsonArray(name: string, batches: AsyncIterable<unknown[]>): AsyncGenerator<string> {
  yield `,${JSON.stringify(name)}:[`;
  let first = true;
  for await (const batch of batches) {
    if (batch.length === 0) continue;
    const items = batch.map((item) => JSON.stringify(item)).join(',');
    yield first ? items : `,${items}`;
    first = false;
  }
  yield ']';
}
