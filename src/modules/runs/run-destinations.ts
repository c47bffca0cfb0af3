import { Injectable } from '@nestjs/common';
import type { Job, JobContext } from '../../common/jobs/job.js';
import { Jobs } from '../../common/jobs/jobs.js';
import type { Sql, SqlValue } from '../../common/persistence/sql.js';
import { quote } from '../../common/persistence/table-gateway.js';
import { Tables, type TenantReads, type TenantTx } from '../../common/persistence/tables.js';
import { CampaignDefinitions } from '../audience/campaign-definitions.js';
import { Customer } from '../customer/entities/customer.entity.js';
import type { DestinationConfig } from '../destination/config/destination-config.js';
import {
  DESTINATION_QUEUE,
  type DeliveryBatch,
  type DeliverySource,
  type SettledBatch,
} from '../destination/delivery/delivery-batch.js';
import type { PreparedRecord, RecordAction } from '../destination/delivery/delivery-record.js';
import { Deliverability } from '../destination/delivery/deliverability.js';
import { DestinationDeliveries } from '../destination/delivery/destination-deliveries.js';
import { dataChecksum, messageIdOf, RecordPreparer, type Recipient } from '../destination/delivery/record-preparer.js';
import { DestinationFiles } from '../destination/files/destination-files.js';
import { CampaignDestination, Destination } from '../destination/entities/destination.entity.js';
import type { CompiledMapping } from '../destination/mapping/attribute-mapping.js';
import type { TreatmentGroup } from '../marketing/entities/campaign-children.entity.js';
import { Campaign } from '../marketing/entities/campaign.entity.js';
import {
  CampaignRun,
  CampaignRunMember,
  CampaignRunRecipient,
  type RecipientStatus,
} from './entities/campaign-run.entity.js';
import { messagingRules } from './messaging-limits.service.js';
import { runAuth } from './run-auth.js';
import { emptyDestinationCounts, receivesNothing, type DestinationCounts, type RunCounts } from './run-counts.js';

/** How an association sends a customer what changed: `connection_details.sync`. */
export const SYNC_MODES = ['send', 'upsert', 'mirror'] as const;
export type SyncMode = (typeof SYNC_MODES)[number];

/** Members planned per page (one read of them, their customers and their last records; one insert). */
const PLAN_PAGE = 2_000;

/** One association of the run, ready to plan and deliver. */
interface Link {
  association: CampaignDestination;
  destination: Destination;
  config: DestinationConfig;
  mapping: CompiledMapping;
  sync: SyncMode;
  /** The groups it sends to. */
  groups: TreatmentGroup[];
}

/** The `ref` of a run's batch in a destination's lane: which recipients it carries. */
interface BatchRef {
  link: number;
  batch: number;
}

/**
 * A campaign run's destinations (docs/campaign-runs.md): which associations may deliver (checked at
 * launch), what each one sends each member (planned once: a recipient row per record, diffed against
 * the last record delivered per association and customer, `campaign_delivery_state`), and the
 * delivery of those rows as batches in each destination's lane (this is their DeliverySource: the
 * lane loads a batch's rows, prepares their records at each attempt, and settles what became of
 * them here). A `file` destination's records are written by the run itself, one file per
 * association, page by page.
 */
@Injectable()
export class RunDestinations implements DeliverySource {
  readonly name = 'run';

  constructor(
    private readonly tables: Tables,
    private readonly jobs: Jobs,
    private readonly definitions: CampaignDefinitions,
    private readonly deliverability: Deliverability,
    private readonly preparer: RecordPreparer,
    private readonly deliveries: DestinationDeliveries,
    private readonly files: DestinationFiles,
  ) {}

  // ---- launch ----

  /** Why the campaign's associations cannot deliver: every problem of every active one, or that there is none. */
  async refusals(reads: TenantReads, campaignId: number): Promise<string[]> {
    const { links, problems } = await this.links(reads, campaignId, { fresh: true });
    if (links.length === 0 && problems.length === 0) return ['The campaign has no active destination.'];
    return problems;
  }

  // ---- plan ----

  /**
   * The run's records: first the frequency caps (in the tenant's plan lane: every other run's records
   * are counted), then each association's recipients, page by page. A dry run records them skipped
   * (`dry_run`): what would be sent, and nothing is.
   */
  async plan(run: CampaignRun, context: JobContext): Promise<boolean> {
    const reads = this.tables.read(runAuth(run));
    const { links } = await this.links(reads, run.campaign_id, {});
    const counts = JSON.parse(run.counts) as RunCounts;
    if (run.progress === null) {
      await this.cap(run, links, context);
      counts.destinations = links.map((link) => emptyDestinationCounts(link.association.id, link.destination.id));
      await this.saveProgress(run, context, 0, counts);
    }
    const campaign = (await reads.table(Campaign).findById(run.campaign_id))!;
    for (let index = Number(run.progress); index < links.length; index++) {
      if (context.shouldStop()) return false;
      const link = links[index];
      // A link planned halfway before a crash is planned again from its start.
      await this.write(run, context, (sql) =>
        sql.run('DELETE FROM campaign_run_recipients WHERE run_id = ? AND campaign_destination_id = ?', [
          run.id,
          link.association.id,
        ]),
      );
      const unchanged = await this.planLink(run, campaign, link, context);
      if (unchanged === undefined) return false;
      const entry = counts.destinations.find((d) => d.campaign_destination_id === link.association.id);
      if (entry) entry.unchanged = unchanged;
      await this.saveProgress(run, context, index + 1, counts);
    }
    return true;
  }

  /**
   * The members over a frequency cap, excluded as `capped`: for each rule whose channel the run sends
   * on (`any`: every one), those who received `max` deliveries on that channel in its window, or
   * have as many waiting in another run.
   */
  private async cap(run: CampaignRun, links: readonly Link[], context: JobContext): Promise<void> {
    const auth = runAuth(run);
    const reads = this.tables.read(auth);
    const channels = new Set(links.map((link) => link.destination.destination_type));
    const rules = (await messagingRules(reads)).filter((rule) => rule.channel === 'any' || channels.has(rule.channel));
    if (rules.length === 0) return;
    const [recipients, associations, destinations] = [
      reads.table(CampaignRunRecipient),
      reads.table(CampaignDestination),
      reads.table(Destination),
    ];
    const [rs, as, ds] = [recipients.scope('r'), associations.scope('a'), destinations.scope('d')];
    await this.write(run, context, async (sql) => {
      for (const rule of rules) {
        const since = Date.now() - rule.per_days * 86_400_000;
        const channel = rule.channel === 'any' ? '' : ' AND d.destination_type = ?';
        const capped = `SELECT r.customer_id FROM ${quote(recipients.spec.table)} r
            JOIN ${quote(associations.spec.table)} a ON a.id = r.campaign_destination_id AND ${as.sql}
            JOIN ${quote(destinations.spec.table)} d ON d.id = a.destination_id AND ${ds.sql}
           WHERE ${rs.sql} AND r.run_id <> ? AND (r.status = 'pending' OR (r.status = 'delivered' AND r.delivered_at >= ?))${channel}
           GROUP BY r.customer_id HAVING COUNT(*) >= ?`;
        await sql.run(
          `UPDATE campaign_run_members SET excluded = 'capped'
            WHERE run_id = ? AND excluded IS NULL AND treatment_group_id IS NOT NULL
              AND customer_id IN (SELECT x.customer_id FROM (${capped}) x)`,
          [
            run.id,
            ...as.params,
            ...ds.params,
            ...rs.params,
            run.id,
            since,
            ...(rule.channel === 'any' ? [] : [rule.channel]),
            rule.max,
          ],
        );
      }
    });
  }

  /** One association's recipients, page by page of its members; answers how many had nothing to send. */
  private async planLink(
    run: CampaignRun,
    campaign: Campaign,
    link: Link,
    context: JobContext,
  ): Promise<number | undefined> {
    const auth = runAuth(run);
    const groups = new Map(link.groups.map((group) => [group.id, group]));
    let unchanged = 0;
    let pending = 0;
    const batchSize = link.config.batchSize;
    for (let after = 0; ;) {
      if (context.shouldStop()) return undefined;
      const page = groups.size ? await this.memberPage(run, [...groups.keys()], after) : [];
      const removals = link.sync === 'mirror' && page.length < PLAN_PAGE;
      if (page.length === 0 && !removals) break;
      const customers = await this.customersOf(
        run,
        page.map((m) => m.customer_id),
      );
      const states = await this.statesOf(
        run,
        link,
        page.map((m) => m.customer_id),
      );
      const recipients: Recipient[] = [];
      for (const member of page) {
        const customer = customers.get(member.customer_id);
        if (!customer) continue; // erased or merged away since the snapshot
        const group = groups.get(member.treatment_group_id)!;
        recipients.push({
          customer,
          treatment_group: { id: group.id, name: group.name, type: group.type },
          action: 'add',
        });
      }
      const { records, skipped } = this.preparer.prepare({
        tenantId: run.tenant_id,
        destinationType: link.destination.destination_type,
        campaignDestinationId: link.association.id,
        mapping: link.mapping,
        campaign: { id: campaign.id, name: campaign.name },
        recipients,
      });
      const rows: Partial<CampaignRunRecipient>[] = [];
      const row = (record: PreparedRecord, action: RecordAction, checksum: string | null) => {
        rows.push({
          run_id: run.id,
          campaign_destination_id: link.association.id,
          customer_id: record.customer_id,
          treatment_group_id: record.treatment_group_id,
          action,
          status: run.dry_run ? 'skipped' : 'pending',
          reason: run.dry_run ? 'dry_run' : null,
          message_id: record.message_id,
          checksum,
          batch: Math.floor(pending++ / batchSize),
        });
      };
      for (const record of records) {
        const checksum = dataChecksum(record.data);
        const state = states.get(record.customer_id);
        const action = actionOf(link.sync, state, checksum);
        if (action === undefined) unchanged++;
        else row(record, action, checksum);
      }
      for (const skip of skipped) {
        const member = page.find((m) => m.customer_id === skip.customer_id)!;
        rows.push({
          run_id: run.id,
          campaign_destination_id: link.association.id,
          customer_id: skip.customer_id,
          treatment_group_id: member.treatment_group_id,
          action: 'add',
          status: 'skipped',
          reason: skip.reason,
          message_id: messageIdOf(run.tenant_id, link.association.id, skip.customer_id, null),
          checksum: null,
          batch: 0,
        });
      }
      if (removals) {
        for (const removal of await this.removals(run, link)) {
          const data = {};
          const message = messageIdOf(run.tenant_id, link.association.id, removal.customer_id, { removed: true });
          rows.push({
            run_id: run.id,
            campaign_destination_id: link.association.id,
            customer_id: removal.customer_id,
            treatment_group_id: null,
            action: 'remove',
            status: run.dry_run ? 'skipped' : 'pending',
            reason: run.dry_run ? 'dry_run' : null,
            message_id: message,
            checksum: dataChecksum(data),
            batch: Math.floor(pending++ / batchSize),
          });
        }
      }
      await this.tables.writeWithBookkeeping(auth, async (tx, sql) => {
        await context.fence(sql);
        await tx.table(CampaignRunRecipient).insertMany(rows, { log: false });
      });
      if (page.length < PLAN_PAGE) break;
      after = page[page.length - 1].customer_id;
    }
    return unchanged;
  }

  // ---- deliver ----

  /**
   * Queues the batches still to deliver (once per entry of the phase: a batch's job is queued once
   * by its key) and writes the file destinations' files; answers how many batches are still in the
   * lanes.
   */
  async deliver(run: CampaignRun, context: JobContext): Promise<number> {
    const reads = this.tables.read(runAuth(run));
    if (run.progress === null) {
      const { links } = await this.links(reads, run.campaign_id, {});
      for (const link of links.filter((l) => l.config.type === 'file')) {
        if (context.shouldStop()) return 1;
        // Written before (a crash before the batches were queued, a retry): its file stays as it is.
        if (await this.written(reads, run, link)) continue;
        await this.writeFile(run, link, context);
      }
      await this.queueBatches(
        run,
        links.filter((l) => l.config.type !== 'file'),
        context,
      );
    }
    return this.jobs.count(DESTINATION_QUEUE, run.id);
  }

  /** One job per (association, batch) with recipients pending, in its destination's lane. */
  private async queueBatches(run: CampaignRun, links: readonly Link[], context: JobContext): Promise<void> {
    const reads = this.tables.read(runAuth(run));
    const recipients = reads.table(CampaignRunRecipient);
    const scope = recipients.scope('r');
    const pending = await reads.select<{ link: number | string; batch: number | string }>(
      `SELECT r.campaign_destination_id AS link, r.batch AS batch FROM ${quote(recipients.spec.table)} r
        WHERE r.run_id = ? AND ${scope.sql} AND r.status = 'pending'
        GROUP BY r.campaign_destination_id, r.batch`,
      [run.id, ...scope.params],
    );
    const byId = new Map(links.map((link) => [link.association.id, link]));
    const batches: DeliveryBatch[] = [];
    for (const { link: linkId, batch } of pending) {
      const link = byId.get(Number(linkId));
      if (!link) continue;
      batches.push({
        source: this.name,
        destination_id: link.destination.id,
        campaign_destination_id: link.association.id,
        campaign_id: run.campaign_id,
        run_id: run.id,
        batch_id: `run_${run.id}_${link.association.id}_${Number(batch)}`,
        targets: [...link.mapping.targets],
        ref: { link: link.association.id, batch: Number(batch) } satisfies BatchRef,
      });
    }
    await this.write(run, context, async (sql) => {
      await this.deliveries.enqueue(sql, run.tenant_id, batches);
      await sql.run('UPDATE campaign_runs SET progress = 1 WHERE id = ?', [run.id]);
    });
    run.progress = 1;
    this.deliveries.nudge();
  }

  /**
   * Whether a `file` association's file was written in this run: its records are marked delivered in
   * one transaction once the file is complete, so a phase that runs again leaves that file alone
   * rather than writing it anew with the records still pending (none).
   */
  private async written(reads: TenantReads, run: CampaignRun, link: Link): Promise<boolean> {
    const recipients = reads.table(CampaignRunRecipient);
    const scope = recipients.scope('r');
    const [row] = await reads.select<{ id: number | string }>(
      `SELECT r.id FROM ${quote(recipients.spec.table)} r
        WHERE r.run_id = ? AND r.campaign_destination_id = ? AND r.status = 'delivered' AND ${scope.sql} LIMIT 1`,
      [run.id, link.association.id, ...scope.params],
    );
    return row !== undefined;
  }

  /** A `file` association: one file of its records (`all`: every member's; `changes`: this run's), written page by page. */
  private async writeFile(run: CampaignRun, link: Link, context: JobContext): Promise<void> {
    const reads = this.tables.read(runAuth(run));
    const campaign = (await reads.table(Campaign).findById(run.campaign_id))!;
    const format = link.config.type === 'file' ? link.config.format : 'ndjson';
    const writer = await this.files.open({
      tenantId: run.tenant_id,
      runId: run.id,
      name: `campaign-destination-${link.association.id}.${format}`,
      campaignDestinationId: link.association.id,
      format,
      targets: link.mapping.targets,
    });
    try {
      for (let after = 0; ;) {
        const rows = await this.pendingPage(reads, run.id, link.association.id, after);
        if (rows.length === 0) break;
        const records = await this.prepared(run, campaign, link, rows);
        await writer.write(records);
        after = rows[rows.length - 1].id;
        if (context.shouldStop()) throw new Error('stopping');
      }
      await writer.close();
    } catch (error) {
      await writer.abort();
      throw error;
    }
    // Written is delivered.
    await this.write(run, context, (sql) => this.markDelivered(sql, run, link.association.id, undefined));
  }

  // ---- the lane's source ----

  /** A batch's records still pending, prepared from its recipient rows (those skipped since are recorded so). */
  async load(job: Job<DeliveryBatch>): Promise<PreparedRecord[]> {
    const { run_id: runId } = job.payload;
    const ref = job.payload.ref as BatchRef;
    const run = await this.tables
      .read(runAuth({ id: runId!, tenant_id: job.tenantId! }))
      .table(CampaignRun)
      .findById(runId!);
    if (!run) return [];
    const reads = this.tables.read(runAuth(run));
    const { links } = await this.links(reads, run.campaign_id, {});
    const link = links.find((l) => l.association.id === ref.link);
    if (!link) return [];
    const recipients = reads.table(CampaignRunRecipient);
    const scope = recipients.scope('r');
    const rows = await reads.select<Record<string, unknown>>(
      `SELECT ${recipients.spec.selectList('r')} FROM ${quote(recipients.spec.table)} r
        WHERE r.run_id = ? AND r.campaign_destination_id = ? AND r.batch = ? AND r.status = 'pending' AND ${scope.sql}`,
      [run.id, ref.link, ref.batch, ...scope.params],
    );
    const campaign = (await reads.table(Campaign).findById(run.campaign_id))!;
    return this.prepared(
      run,
      campaign,
      link,
      rows.map((row) => recipients.spec.normalize(row)),
    );
  }

  /** What became of each batch: its records delivered, rejected or failed, and the last record delivered per customer. */
  async settle(sql: Sql, batches: readonly SettledBatch[]): Promise<void> {
    const now = Date.now();
    for (const { job, final, outcomes, error } of batches) {
      const ref = job.payload.ref as BatchRef;
      const runId = job.payload.run_id!;
      const key: SqlValue[] = [runId, ref.link, ref.batch];
      for (const status of ['delivered', 'rejected'] as const) {
        const settled = outcomes.filter((outcome) => outcome.status === status);
        for (const reason of new Set(settled.map((outcome) => outcome.reason ?? null))) {
          const ids = settled.filter((o) => (o.reason ?? null) === reason).map((o) => o.message_id);
          await sql.run(
            `UPDATE campaign_run_recipients SET status = ?, reason = ?, attempts = attempts + 1, delivered_at = ?
              WHERE run_id = ? AND campaign_destination_id = ? AND batch = ? AND status = 'pending'
                AND message_id IN (${ids.map(() => '?').join(', ')})`,
            [status, reason, status === 'delivered' ? now : null, ...key, ...ids],
          );
        }
      }
      if (outcomes.some((outcome) => outcome.status === 'delivered')) await this.keepState(sql, runId, ref);
      if (final === 'failed') {
        await sql.run(
          `UPDATE campaign_run_recipients SET status = 'failed', attempts = attempts + 1, last_error = ?
            WHERE run_id = ? AND campaign_destination_id = ? AND batch = ? AND status = 'pending'`,
          [error ?? 'failed', ...key],
        );
      } else if (final === 'retry') {
        await sql.run(
          `UPDATE campaign_run_recipients SET attempts = attempts + 1, last_error = ?
            WHERE run_id = ? AND campaign_destination_id = ? AND batch = ? AND status = 'pending'`,
          [error ?? null, ...key],
        );
      }
    }
  }

  // ---- control ----

  /** Whether batches of the run are still in its destinations' lanes. */
  async inFlight(run: CampaignRun): Promise<boolean> {
    return (await this.jobs.count(DESTINATION_QUEUE, run.id)) > 0;
  }

  /** Every record still pending is skipped with `reason` (a cancelled run, once its batches in flight ended). */
  async skipRemaining(run: CampaignRun, context: JobContext, reason: string): Promise<void> {
    await this.write(run, context, (sql) =>
      sql.run(
        `UPDATE campaign_run_recipients SET status = 'skipped', reason = ? WHERE run_id = ? AND status = 'pending'`,
        [reason, run.id],
      ),
    );
  }

  /** The failed records of a run pending again (retry); answers how many. */
  async retryFailed(_tx: TenantTx, sql: Sql, run: CampaignRun): Promise<number> {
    const { affected } = await sql.run(
      `UPDATE campaign_run_recipients SET status = 'pending', last_error = NULL WHERE run_id = ? AND status = 'failed'`,
      [run.id],
    );
    return affected;
  }

  /** Each association's counts, from its recipient rows (and, planned, its unchanged members). */
  async counts(run: CampaignRun): Promise<DestinationCounts[]> {
    const planned = (JSON.parse(run.counts) as RunCounts).destinations ?? [];
    if (planned.length === 0) return [];
    const reads = this.tables.read(runAuth(run));
    const recipients = reads.table(CampaignRunRecipient);
    const scope = recipients.scope('r');
    const rows = await reads.select<{
      link: number | string;
      action: string;
      status: RecipientStatus;
      n: number | string;
    }>(
      `SELECT r.campaign_destination_id AS link, r.action AS action, r.status AS status, COUNT(*) AS n
         FROM ${quote(recipients.spec.table)} r WHERE r.run_id = ? AND ${scope.sql}
        GROUP BY r.campaign_destination_id, r.action, r.status`,
      [run.id, ...scope.params],
    );
    return planned.map((entry) => {
      const counts = {
        ...emptyDestinationCounts(entry.campaign_destination_id, entry.destination_id),
        unchanged: entry.unchanged,
      };
      for (const row of rows.filter((r) => Number(r.link) === entry.campaign_destination_id)) {
        const n = Number(row.n);
        if (row.status === 'skipped' && row.action !== 'remove' && (row.action === 'add' || row.action === 'update')) {
          // A record not sent (unsubscribed, no address, cancelled, a dry run): still counted by what it would have been.
        }
        if (row.action === 'add' || row.action === 'update' || row.action === 'remove') counts[row.action] += n;
        counts[row.status] += n;
      }
      return counts;
    });
  }

  // ---- internals ----

  /** The campaign's active associations that can deliver, and the problems of those that cannot. */
  private async links(
    reads: TenantReads,
    campaignId: number,
    options: { fresh?: boolean },
  ): Promise<{ links: Link[]; problems: string[] }> {
    const associations = (await reads.table(CampaignDestination).findWhere({ campaign_id: campaignId })).filter(
      (association) => association.is_active,
    );
    const { groups } = await this.definitions.load(reads, campaignId);
    const destinations = new Map(
      (await reads.table(Destination).findMany(associations.map((a) => a.destination_id))).map((d) => [d.id, d]),
    );
    const links: Link[] = [];
    const problems: string[] = [];
    for (const association of associations) {
      const destination = destinations.get(association.destination_id)!;
      const assessment = await this.deliverability.assess(destination, options);
      const linked = this.deliverability.link(association, {
        destination_type: destination.destination_type,
        is_active: destination.is_active,
        problems: assessment.problems,
      });
      const sync = syncOf(destination);
      const own = [...linked.problems];
      if (sync === undefined) {
        own.push({
          field: 'destination.connection_details.sync',
          message: 'The sync field must be send, upsert or mirror.',
        });
      }
      if (own.length || !linked.mapping || !assessment.config) {
        for (const problem of own)
          problems.push(`Campaign destination ${association.id}: ${problem.field}: ${problem.message}`);
        continue;
      }
      const named = association.treatment_group_id;
      links.push({
        association,
        destination,
        config: assessment.config,
        mapping: linked.mapping,
        sync: sync!,
        groups: groups.filter((group) => (named === null ? !receivesNothing(group.type) : group.id === named)),
      });
    }
    return { links, problems };
  }

  private async memberPage(
    run: CampaignRun,
    groups: number[],
    after: number,
  ): Promise<{ customer_id: number; treatment_group_id: number }[]> {
    const reads = this.tables.read(runAuth(run));
    const members = reads.table(CampaignRunMember);
    const scope = members.scope('m');
    const runId = run.id;
    const rows = await reads.select<{ customer_id: number | string; treatment_group_id: number | string }>(
      `SELECT m.customer_id, m.treatment_group_id FROM ${quote(members.spec.table)} m
          WHERE m.run_id = ? AND ${scope.sql} AND m.excluded IS NULL
            AND m.treatment_group_id IN (${groups.map(() => '?').join(', ')}) AND m.customer_id > ?
          ORDER BY m.customer_id LIMIT ${PLAN_PAGE}`,
      [runId, ...scope.params, ...groups, after],
    );
    return rows.map((row) => ({
      customer_id: Number(row.customer_id),
      treatment_group_id: Number(row.treatment_group_id),
    }));
  }

  private async customersOf(run: CampaignRun, ids: number[]): Promise<Map<number, Customer>> {
    const rows = await this.tables.read(runAuth(run)).table(Customer).findMany(ids);
    return new Map(rows.map((row) => [row.id, row]));
  }

  /** The last record delivered by the association to each of these customers: its checksum and action. */
  private async statesOf(run: CampaignRun, link: Link, customerIds: number[]): Promise<Map<number, State>> {
    if (customerIds.length === 0 || link.sync === undefined) return new Map();
    const rows = await this.tables
      .read(runAuth(run))
      .select<{ customer_id: number | string; checksum: string; action: string }>(
        `SELECT s.customer_id, s.checksum, s.action FROM campaign_delivery_state s
        WHERE s.campaign_destination_id = ? AND s.customer_id IN (${customerIds.map(() => '?').join(', ')})`,
        [link.association.id, ...customerIds],
      );
    return new Map(rows.map((row) => [Number(row.customer_id), { checksum: row.checksum, action: row.action }]));
  }

  /** Mirror: customers delivered before and no longer members the association sends to. */
  private async removals(run: CampaignRun, link: Link): Promise<{ customer_id: number }[]> {
    const groups = link.groups.map((group) => group.id);
    const rows = await this.tables.read(runAuth(run)).select<{ customer_id: number | string }>(
      `SELECT s.customer_id FROM campaign_delivery_state s
        WHERE s.campaign_destination_id = ? AND s.action <> 'remove'
          AND s.customer_id NOT IN (
            SELECT m.customer_id FROM campaign_run_members m
             WHERE m.run_id = ? AND m.excluded IS NULL${groups.length ? ` AND m.treatment_group_id IN (${groups.map(() => '?').join(', ')})` : ' AND 1 = 0'})`,
      [link.association.id, run.id, ...groups],
    );
    return rows.map((row) => ({ customer_id: Number(row.customer_id) }));
  }

  private async pendingPage(
    reads: TenantReads,
    runId: number,
    linkId: number,
    after: number,
  ): Promise<CampaignRunRecipient[]> {
    const recipients = reads.table(CampaignRunRecipient);
    const scope = recipients.scope('r');
    const rows = await reads.select<Record<string, unknown>>(
      `SELECT ${recipients.spec.selectList('r')} FROM ${quote(recipients.spec.table)} r
        WHERE r.run_id = ? AND r.campaign_destination_id = ? AND r.status = 'pending' AND r.id > ? AND ${scope.sql}
        ORDER BY r.id LIMIT ${PLAN_PAGE}`,
      [runId, linkId, after, ...scope.params],
    );
    return rows.map((row) => recipients.spec.normalize(row));
  }

  /** Recipient rows → their records, prepared now (a customer unsubscribed since is recorded skipped). */
  private async prepared(
    run: CampaignRun,
    campaign: Campaign,
    link: Link,
    rows: readonly CampaignRunRecipient[],
  ): Promise<PreparedRecord[]> {
    const customers = await this.customersOf(
      run,
      rows.map((row) => row.customer_id),
    );
    const groups = new Map(link.groups.map((group) => [group.id, group]));
    const recipients: Recipient[] = [];
    const gone: number[] = [];
    for (const row of rows) {
      const customer = customers.get(row.customer_id);
      if (!customer) {
        gone.push(row.customer_id);
        continue;
      }
      const group = row.treatment_group_id === null ? undefined : groups.get(row.treatment_group_id);
      recipients.push({
        customer,
        treatment_group: group ? { id: group.id, name: group.name, type: group.type } : null,
        action: row.action,
        message_id: row.message_id,
      });
    }
    const { records, skipped } = this.preparer.prepare({
      tenantId: run.tenant_id,
      destinationType: link.destination.destination_type,
      campaignDestinationId: link.association.id,
      mapping: link.mapping,
      campaign: { id: campaign.id, name: campaign.name },
      recipients,
    });
    const skips = [
      ...skipped.map((s) => ({ id: s.customer_id, reason: s.reason as string })),
      ...gone.map((id) => ({ id, reason: 'erased' })),
    ];
    if (skips.length) {
      await this.tables.writeWithBookkeeping(runAuth(run), async (_tx, sql) => {
        for (const reason of new Set(skips.map((s) => s.reason))) {
          const ids = skips.filter((s) => s.reason === reason).map((s) => s.id);
          await sql.run(
            `UPDATE campaign_run_recipients SET status = 'skipped', reason = ?
              WHERE run_id = ? AND campaign_destination_id = ? AND status = 'pending' AND customer_id IN (${ids.map(() => '?').join(', ')})`,
            [reason, run.id, link.association.id, ...ids],
          );
        }
      });
    }
    return records;
  }

  /** Every pending record of an association (of one batch) delivered now, and kept as the last record delivered. */
  private async markDelivered(sql: Sql, run: CampaignRun, linkId: number, batch: number | undefined): Promise<void> {
    const inBatch = batch === undefined ? '' : ' AND batch = ?';
    const key: SqlValue[] = [run.id, linkId, ...(batch === undefined ? [] : [batch])];
    await sql.run(
      `UPDATE campaign_run_recipients SET status = 'delivered', attempts = attempts + 1, delivered_at = ?
        WHERE run_id = ? AND campaign_destination_id = ?${inBatch} AND status = 'pending'`,
      [Date.now(), ...key],
    );
    await this.keepState(sql, run.id, { link: linkId, batch });
  }

  /** The last record delivered per (association, customer): what the next run diffs against. */
  private async keepState(sql: Sql, runId: number, ref: { link: number; batch?: number }): Promise<void> {
    const inBatch = ref.batch === undefined ? '' : ' AND r.batch = ?';
    const select = `SELECT r.campaign_destination_id, r.customer_id, r.tenant_id, COALESCE(r.checksum, ''), r.action, r.run_id,
             r.delivered_at, r.updated_at, r.updated_at
        FROM campaign_run_recipients r
       WHERE r.run_id = ? AND r.campaign_destination_id = ?${inBatch} AND r.status = 'delivered'`;
    const params: SqlValue[] = [runId, ref.link, ...(ref.batch === undefined ? [] : [ref.batch])];
    const columns =
      'campaign_destination_id, customer_id, tenant_id, checksum, action, run_id, delivered_at, created_at, updated_at';
    await sql.run(
      sql.dialect === 'mysql'
        ? `INSERT INTO campaign_delivery_state (${columns}) ${select}
           ON DUPLICATE KEY UPDATE checksum = VALUES(checksum), action = VALUES(action), run_id = VALUES(run_id),
             delivered_at = VALUES(delivered_at), updated_at = VALUES(updated_at)`
        : `INSERT INTO campaign_delivery_state (${columns}) ${select} AND true
           ON CONFLICT (campaign_destination_id, customer_id) DO UPDATE SET checksum = excluded.checksum,
             action = excluded.action, run_id = excluded.run_id, delivered_at = excluded.delivered_at,
             updated_at = excluded.updated_at`,
      params,
    );
  }

  private async saveProgress(
    run: CampaignRun,
    context: JobContext,
    progress: number,
    counts: RunCounts,
  ): Promise<void> {
    await this.write(run, context, (sql) =>
      sql.run('UPDATE campaign_runs SET progress = ?, counts = ? WHERE id = ?', [
        progress,
        JSON.stringify(counts),
        run.id,
      ]),
    );
    run.progress = progress;
    run.counts = JSON.stringify(counts);
  }

  private write(run: CampaignRun, context: JobContext, work: (sql: Sql) => Promise<unknown>): Promise<unknown> {
    return this.tables.writeWithBookkeeping(runAuth(run), async (_tx, sql) => {
      await context.fence(sql);
      return work(sql);
    });
  }
}

interface State {
  checksum: string;
  action: string;
}

/** What an association sends a member: `send` once ever, `upsert`/`mirror` when its data changed; undefined: nothing. */
export function actionOf(sync: SyncMode, state: State | undefined, checksum: string): RecordAction | undefined {
  if (!state || state.action === 'remove') return 'add';
  if (sync === 'send') return undefined;
  return state.checksum === checksum ? undefined : 'update';
}

/** `connection_details.sync` (default `send` for e-mail, `upsert` otherwise); undefined when it is no mode. */
export function syncOf(
  destination: Pick<Destination, 'destination_type' | 'connection_details'>,
): SyncMode | undefined {
  let details: unknown;
  try {
    details = JSON.parse(destination.connection_details);
  } catch {
    details = null;
  }
  const sync = details && typeof details === 'object' ? (details as { sync?: unknown }).sync : undefined;
  if (sync === undefined) return destination.destination_type === 'email' ? 'send' : 'upsert';
  return (SYNC_MODES as readonly unknown[]).includes(sync) ? (sync as SyncMode) : undefined;
}
