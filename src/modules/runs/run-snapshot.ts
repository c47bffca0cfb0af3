import { Injectable } from '@nestjs/common';
import type { JobContext } from '../../common/jobs/job.js';
import type { SqlValue } from '../../common/persistence/sql.js';
import { quote } from '../../common/persistence/table-gateway.js';
import { Tables, type TenantReads, type TenantTx } from '../../common/persistence/tables.js';
import { campaignEligibility, compileOptions, CUSTOMER_ALIAS, ruleScope } from '../audience/audience-selection.js';
import { CampaignDefinitions } from '../audience/campaign-definitions.js';
import { bucketRanges, bucketSql } from '../audience/rules/bucket.js';
import { and, compileTree, MATCH_EVERYBODY, type SqlFragment } from '../audience/rules/sql-compiler.js';
import { CustomerRules } from '../customer/customer-rules.js';
import { Customer } from '../customer/entities/customer.entity.js';
import type { TreatmentGroup } from '../marketing/entities/campaign-children.entity.js';
import { CampaignRun, CampaignRunMember, EXCLUSIONS, type Exclusion } from './entities/campaign-run.entity.js';
import { emptyCounts, receivesNothing, type RunCounts } from './run-counts.js';
import { runAuth } from './run-auth.js';
import { readTenantState } from '../../common/usage/tenant-limits.js';
import { ruleCondition } from './validation-rule-filter.js';
import { activeValidationRules } from './run-readiness.js';

/** Customer ids read per INSERT ... SELECT of the snapshot: one short transaction each. */
const IDS_PER_STATEMENT = 50_000;
/** Members checked against the suppression list per read. */
const SUPPRESSION_PAGE = 5_000;

/**
 * Records a run's members once, set-based: the customers the campaign's audiences select (after
 * each link's segment_override), each with the treatment group the bucket formula gives it (null:
 * held out), and, for an eligible one, why it receives nothing: `inactive`, `invalid` (it fails
 * an attached active validation rule), then `suppressed` (its e-mail address or external id is on
 * the suppression list). In customer-id slices, each one short transaction fenced on the run's
 * job, its progress kept on the run: a job resumed after a crash goes on from the last slice.
 */
@Injectable()
export class RunSnapshot {
  constructor(
    private readonly tables: Tables,
    private readonly definitions: CampaignDefinitions,
    private readonly rules: CustomerRules,
  ) {}

  /** The members, slice by slice from the run's progress on; answers false when told to stop first. */
  async record(run: CampaignRun, context: JobContext): Promise<boolean> {
    const auth = runAuth(run);
    const reads = this.tables.read(auth);
    const now = new Date(run.snapshot_at!);
    const { groups, links } = await this.definitions.load(reads, run.campaign_id);
    const eligibility = campaignEligibility(links, ruleScope(reads), now);
    if (!eligibility.evaluable) return true;
    const valid = await this.validity(reads, run.campaign_id, now);
    const [first, last] = await this.idRange(reads);
    for (let from = Math.max(first, Number(run.progress ?? 0) + 1); from <= last; from += IDS_PER_STATEMENT) {
      if (context.shouldStop()) return false;
      const to = Math.min(last, from + IDS_PER_STATEMENT - 1);
      await this.tables.writeWithBookkeeping(auth, async (tx, sql) => {
        await context.fence(sql);
        await this.slice(tx, run, groups, { eligibility: eligibility.filter, valid }, [from, to]);
        await sql.run('UPDATE campaign_runs SET progress = ? WHERE id = ?', [to, run.id]);
      });
      run.progress = to;
    }
    return true;
  }

  /** Marks the eligible members whose e-mail address or external id an erasure has suppressed (none in most tenants). */
  async suppress(run: CampaignRun, context: JobContext): Promise<boolean> {
    const auth = runAuth(run);
    const reads = this.tables.read(auth);
    // A tenant that never listed a value has nothing to suppress: no need to hash every member.
    const tenant = await readTenantState(
      { query: (statement, params) => reads.select(statement, params) },
      run.tenant_id,
    );
    if (tenant?.suppressionsListed === 0) return true;
    const [customers, members] = [reads.table(Customer), reads.table(CampaignRunMember)];
    const [cs, ms] = [customers.scope('c'), members.scope('m')];
    for (let after = Number(run.progress ?? 0); ;) {
      if (context.shouldStop()) return false;
      const page = await reads.select<{ id: number | string; email: string | null; external_id: string | null }>(
        `SELECT c.id, c.email, c.external_id FROM ${quote(members.spec.table)} m
           JOIN ${quote(customers.spec.table)} c ON c.id = m.customer_id AND ${cs.sql}
          WHERE m.run_id = ? AND ${ms.sql} AND m.treatment_group_id IS NOT NULL AND m.excluded IS NULL AND m.customer_id > ?
          ORDER BY m.customer_id LIMIT ${SUPPRESSION_PAGE}`,
        [...cs.params, run.id, ...ms.params, after],
      );
      if (page.length === 0) return true;
      const refusals = await this.rules.refusals(reads, page);
      const suppressed = page.filter((_, i) => refusals[i]).map((row) => Number(row.id));
      after = Number(page[page.length - 1].id);
      await this.tables.writeWithBookkeeping(auth, async (_tx, sql) => {
        await context.fence(sql);
        if (suppressed.length) {
          await sql.run(
            `UPDATE campaign_run_members SET excluded = 'suppressed'
              WHERE run_id = ? AND customer_id IN (${suppressed.map(() => '?').join(', ')})`,
            [run.id, ...suppressed],
          );
        }
        await sql.run('UPDATE campaign_runs SET progress = ? WHERE id = ?', [after, run.id]);
      });
      run.progress = after;
    }
  }

  /** The run's member counts, by group and exclusion, in one read. */
  async counts(run: CampaignRun): Promise<RunCounts> {
    const reads = this.tables.read(runAuth(run));
    const members = reads.table(CampaignRunMember);
    const scope = members.scope('m');
    const rows = await reads.select<{
      group_id: number | string | null;
      excluded: Exclusion | null;
      n: number | string;
    }>(
      `SELECT m.treatment_group_id AS group_id, m.excluded AS excluded, COUNT(*) AS n
         FROM ${quote(members.spec.table)} m WHERE m.run_id = ? AND ${scope.sql}
        GROUP BY m.treatment_group_id, m.excluded`,
      [run.id, ...scope.params],
    );
    const { groups } = await this.definitions.load(reads, run.campaign_id);
    const counts = emptyCounts();
    const left = new Map<number, number>();
    for (const row of rows) {
      const n = Number(row.n);
      counts.audience += n;
      if (row.group_id === null) continue;
      counts.eligible += n;
      if (row.excluded && (EXCLUSIONS as readonly string[]).includes(row.excluded)) counts.excluded[row.excluded] += n;
      else left.set(Number(row.group_id), (left.get(Number(row.group_id)) ?? 0) + n);
    }
    counts.groups = groups.map((group) => ({
      treatment_group_id: group.id,
      name: group.name,
      type: group.type,
      members: left.get(group.id) ?? 0,
    }));
    counts.control = counts.groups
      .filter((group) => receivesNothing(group.type))
      .reduce((sum, g) => sum + g.members, 0);
    return counts;
  }

  /** One slice of customer ids: every audience member of it, in one INSERT ... SELECT through the gateway. */
  private async slice(
    tx: TenantTx,
    run: CampaignRun,
    groups: readonly TreatmentGroup[],
    filters: { eligibility: SqlFragment; valid: SqlFragment },
    [from, to]: [number, number],
  ): Promise<void> {
    const c = CUSTOMER_ALIAS;
    const customers = tx.table(Customer);
    const scope = customers.scope(c);
    const bucket = bucketSql(tx.dialect, c, run.campaign_id);
    const ranges = bucketRanges([...groups]).filter((range) => range.to > range.from);
    const group = ranges.length
      ? `CASE ${ranges.map(() => 'WHEN x.b >= ? AND x.b < ? THEN ?').join(' ')} ELSE NULL END`
      : 'NULL';
    const groupParams: SqlValue[] = ranges.flatMap((range) => [range.from, range.to, Number(range.groupId)]);
    // Computed once per customer (the bucket's hash), then read by the CASEs outside.
    const inner = `SELECT ${c}.id AS id, ${bucket.sql} AS b,
                          CASE WHEN ${c}.is_active = ? THEN 0 ELSE 1 END AS inactive,
                          CASE WHEN ${filters.valid.sql} THEN 0 ELSE 1 END AS invalid
                     FROM ${quote(customers.spec.table)} ${c}
                    WHERE ${scope.sql} AND ${c}.id >= ? AND ${c}.id <= ? AND ${filters.eligibility.sql}`;
    const innerParams: SqlValue[] = [
      ...bucket.params,
      true,
      ...filters.valid.params,
      ...scope.params,
      from,
      to,
      ...filters.eligibility.params,
    ];
    const assigned = `SELECT y.id, y.g, CASE WHEN y.g IS NULL THEN NULL WHEN y.inactive = 1 THEN 'inactive'
                             WHEN y.invalid = 1 THEN 'invalid' ELSE NULL END
                        FROM (SELECT x.id, ${group} AS g, x.inactive, x.invalid FROM (${inner}) x) y`;
    await tx.table(CampaignRunMember).insertSelect(['customer_id', 'treatment_group_id', 'excluded', 'run_id'], {
      sql: `SELECT z.*, ? FROM (${assigned}) z`,
      params: [run.id, ...groupParams, ...innerParams],
    });
  }

  /** The condition every attached active validation rule holds (each rule's override when set). */
  private async validity(reads: TenantReads, campaignId: number, now: Date): Promise<SqlFragment> {
    const conditions: SqlFragment[] = [];
    for (const rule of await activeValidationRules(reads, campaignId)) {
      const parsed = ruleCondition(rule.definition);
      // Checked at launch: a rule that cannot be evaluated refuses the run (RunReadiness).
      if (parsed.ok) conditions.push(compileTree(parsed.tree, compileOptions(ruleScope(reads), now)));
    }
    return conditions.length ? and(...conditions) : MATCH_EVERYBODY;
  }

  /** The tenant's smallest and largest customer id ([1, 0]: none). */
  private async idRange(reads: TenantReads): Promise<[number, number]> {
    const customers = reads.table(Customer);
    const scope = customers.scope('c');
    const [row] = await reads.select<{ first: number | string | null; last: number | string | null }>(
      `SELECT MIN(c.id) AS first, MAX(c.id) AS last FROM ${quote(customers.spec.table)} c WHERE ${scope.sql}`,
      scope.params,
    );
    return row?.first == null ? [1, 0] : [Number(row.first), Number(row.last)];
  }
}
