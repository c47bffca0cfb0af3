import { Injectable, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { BetterSqlite3Driver } from 'typeorm/driver/better-sqlite3/BetterSqlite3Driver.js';
import type { AuthContext } from '../../common/auth/auth-context.js';
import { RecordNotFound } from '../../common/http/api-exception.js';
import { Tables, type TenantReads } from '../../common/persistence/tables.js';
import { quote } from '../../common/persistence/table-gateway.js';
import { Customer } from '../customer/entities/customer.entity.js';
import { Campaign } from '../marketing/entities/campaign.entity.js';
import { CUSTOMER_ALIAS, campaignEligibility, ruleScope } from './audience-selection.js';
import { SELECTION_VERSION_COLUMN } from '../marketing/campaign-selection-version.js';
import { CampaignDefinitions, type CampaignDefinition } from './campaign-definitions.js';
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
    private readonly definitions: CampaignDefinitions,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  /** SQLite has no SHA-256: the summary's bucket expression calls a function of the one connection. */
  onModuleInit(): void {
    if (this.dataSource.options.type === 'better-sqlite3') {
      registerSqliteFunctions((this.dataSource.driver as BetterSqlite3Driver).databaseConnection);
    }
  }

  /**
   * One statement on a warm instance: the customer's membership under the kept definition, read
   * with the campaign's current version; only when that version moved is the definition read again.
   */
  async assignment(auth: AuthContext, campaignId: number, customerId: number): Promise<AssignmentResponse> {
    const tx = this.tables.read(auth);
    const now = new Date();
    let definition = this.definitions.cached(tx, campaignId);
    let probe = definition && (await this.probe(tx, definition, campaignId, customerId, now));
    if (!definition || !probe || probe.version !== definition.version) {
      definition = await this.definitions.load(tx, campaignId);
      probe = await this.probe(tx, definition, campaignId, customerId, now);
      if (!probe) throw new RecordNotFound('campaign');
    }
    if (probe.selected === undefined) throw new RecordNotFound('customer');
    const bucket = bucketOf(campaignId, customerId);
    const groupId = assignGroup(bucket, definition.groups);
    return toAssignmentResponse({
      campaignId,
      customerId,
      eligible: probe.selected,
      bucket,
      groupId: groupId === null ? null : Number(groupId),
    });
  }

  /**
   * The campaign's version beside whether the customer is eligible under `definition` (undefined:
   * the tenant has no such customer); undefined when it has no such campaign.
   */
  private async probe(
    tx: TenantReads,
    definition: CampaignDefinition,
    campaignId: number,
    customerId: number,
    now: Date,
  ): Promise<{ version: number; selected: boolean | undefined } | undefined> {
    const eligibility = campaignEligibility(definition.links, ruleScope(tx), now);
    const [campaigns, customers] = [tx.table(Campaign), tx.table(Customer)];
    const k = quote(campaigns.spec.table);
    const [campaignScope, customerScope] = [campaigns.scope(k), customers.scope(CUSTOMER_ALIAS)];
    const c = CUSTOMER_ALIAS;
    const [row] = await tx.select<{
      version: number | string;
      customer_id: number | string | null;
      selected: number | string;
    }>(
      `SELECT ${k}.${SELECTION_VERSION_COLUMN} AS version, ${c}.id AS customer_id,
              CASE WHEN ${eligibility.filter.sql} THEN 1 ELSE 0 END AS selected
         FROM ${k} LEFT JOIN ${quote(customers.spec.table)} ${c} ON ${c}.id = ? AND ${customerScope.sql}
        WHERE ${k}.id = ? AND ${campaignScope.sql}`,
      [...eligibility.filter.params, customerId, ...customerScope.params, campaignId, ...campaignScope.params],
    );
    if (!row) return undefined;
    return {
      version: Number(row.version),
      selected: row.customer_id === null ? undefined : Number(row.selected) === 1,
    };
  }

  async summary(auth: AuthContext, campaignId: number): Promise<AssignmentSummaryResponse> {
    const tx = this.tables.read(auth);
    const { groups, links } = await this.definitions.load(tx, campaignId);
    const eligibility = campaignEligibility(links, ruleScope(tx), new Date());
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
}
