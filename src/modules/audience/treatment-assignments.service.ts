import { Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { BetterSqlite3Driver } from 'typeorm/driver/better-sqlite3/BetterSqlite3Driver.js';
import type { AuthContext } from '../../common/auth/auth-context.js';
import { RecordNotFound } from '../../common/http/api-exception.js';
import { Tables, type TenantTx } from '../../common/resources/tables.js';
import { quote } from '../../common/resources/table-gateway.js';
import { TreatmentGroup } from '../marketing/entities/campaign-children.entity.js';
import { Campaign } from '../marketing/entities/campaign.entity.js';
import { campaignEligibility } from './audience-selection.js';
import { CustomerScans } from './customer-scan.js';
import {
  toAssignmentGroupResponse,
  toAssignmentResponse,
  toAssignmentSummaryResponse,
  type AssignmentResponse,
  type AssignmentSummaryResponse,
} from './dto/assignment.response.js';
import { assignGroup, bucketOf, registerSqliteFunctions, summarizeBuckets } from './rules/bucket.js';

/**
 * Treatment assignment of a campaign's customers: the bucket formula of ./rules/bucket.ts over the
 * campaign's treatment groups, for the customers eligible through its audiences. Nothing is
 * stored: every call and every instance computes the same answer from the same data.
 */
@Injectable()
export class TreatmentAssignmentsService implements OnModuleInit {
  constructor(
    private readonly tables: Tables,
    private readonly scans: CustomerScans,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  /** SQLite has no SHA-256: the summary's bucket expression calls a function of the one connection. */
  onModuleInit(): void {
    if (this.dataSource.options.type === 'better-sqlite3') {
      registerSqliteFunctions((this.dataSource.driver as BetterSqlite3Driver).databaseConnection);
    }
  }

  async assignment(auth: AuthContext, campaignId: number, customerId: number): Promise<AssignmentResponse> {
    const tx = this.tables.within(auth);
    const now = new Date();
    const [groups, eligibility] = await Promise.all([
      this.groups(tx, campaignId),
      campaignEligibility(tx, campaignId, now),
    ]);
    const eligible = await this.scans.in(tx).selects(eligibility, customerId);
    if (eligible === undefined) throw new RecordNotFound('customer');
    const bucket = bucketOf(campaignId, customerId);
    const groupId = assignGroup(bucket, groups);
    return toAssignmentResponse({
      campaignId,
      customerId,
      eligible,
      bucket,
      groupId: groupId === null ? null : Number(groupId),
    });
  }

  async summary(auth: AuthContext, campaignId: number): Promise<AssignmentSummaryResponse> {
    const tx = this.tables.within(auth);
    const [groups, eligibility] = await Promise.all([
      this.groups(tx, campaignId),
      campaignEligibility(tx, campaignId, new Date()),
    ]);
    const buckets = await this.scans.in(tx).buckets(eligibility, campaignId);
    const summary = summarizeBuckets(buckets, groups);
    const eligible = buckets.reduce((sum, row) => sum + Number(row.customers), 0);
    return toAssignmentSummaryResponse(
      eligible,
      summary.held_out,
      groups.map((group) =>
        toAssignmentGroupResponse(group, summary.groups.find((g) => Number(g.id) === group.id)?.customers ?? 0),
      ),
    );
  }

  /**
   * The campaign's treatment groups, ordered by id (the order their bucket ranges follow), read
   * with the campaign itself in one query: 404 when the tenant has no such campaign.
   */
  private async groups(tx: TenantTx, campaignId: number): Promise<TreatmentGroup[]> {
    const [campaigns, groups] = [tx.table(Campaign), tx.table(TreatmentGroup)];
    const [k, g] = [quote(campaigns.spec.table), quote(groups.spec.table)];
    const [campaignScope, groupScope] = [campaigns.scope(k), groups.scope(g)];
    const rows = await tx.sql.query<Record<string, unknown>>(
      `SELECT ${k}.id AS campaign_id_found, ${groups.spec.selectList(g)}
         FROM ${k} LEFT JOIN ${g} ON ${g}.campaign_id = ${k}.id AND ${groupScope.sql}
        WHERE ${k}.id = ? AND ${campaignScope.sql}
        ORDER BY ${g}.id`,
      [...groupScope.params, campaignId, ...campaignScope.params],
    );
    if (rows.length === 0) throw new RecordNotFound('campaign');
    return rows.filter((row) => row.id !== null).map((row) => groups.spec.normalize(row));
  }
}
