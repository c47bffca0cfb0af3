import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../common/auth/auth-context.js';
import { RecordNotFound } from '../../common/http/api-exception.js';
import { Page } from '../../common/http/page.js';
import type { ListQueryDto } from '../../common/resources/list-query.dto.js';
import { Tables, type TenantReads } from '../../common/persistence/tables.js';
import { toCustomerResponse, type CustomerResponse } from '../customer/dto/customer.response.js';
import { audienceSelections, narrowed, ruleScope, ruleSelection, type Selection } from './audience-selection.js';
import { CustomerScans, memberPageRequest } from './customer-scan.js';
import type { AudienceSelectionDto } from './dto/audience.dto.js';
import {
  toAudienceCountResponse,
  toAudiencePreviewResponse,
  type AudienceCountResponse,
  type AudiencePreviewResponse,
} from './dto/members.response.js';
import { Audience, SubAudience } from './entities/audience.entity.js';
import { DEFAULT_MATCH } from './rules/rule-grammar.js';

/** Customers a preview shows. */
export const PREVIEW_CUSTOMERS = 10;

/** The customers audiences and sub-audiences select: counts, member lists, and previews of unsaved rules. */
@Injectable()
export class AudienceMembersService {
  constructor(
    private readonly tables: Tables,
    private readonly scans: CustomerScans,
  ) {}

  async countAudience(auth: AuthContext, id: number): Promise<AudienceCountResponse> {
    const tx = this.tables.read(auth);
    return this.count(tx, await this.audience(tx, id, new Date()));
  }

  async audienceCustomers(auth: AuthContext, id: number, query: ListQueryDto): Promise<Page<CustomerResponse>> {
    const tx = this.tables.read(auth);
    return this.members(tx, await this.audience(tx, id, new Date()), query);
  }

  async countSubAudience(auth: AuthContext, id: number): Promise<AudienceCountResponse> {
    const tx = this.tables.read(auth);
    return this.count(tx, await this.subAudience(tx, id, new Date()));
  }

  async subAudienceCustomers(auth: AuthContext, id: number, query: ListQueryDto): Promise<Page<CustomerResponse>> {
    const tx = this.tables.read(auth);
    return this.members(tx, await this.subAudience(tx, id, new Date()), query);
  }

  /** What rules would select, saving nothing: the count and the first members. */
  async preview(auth: AuthContext, dto: AudienceSelectionDto): Promise<AudiencePreviewResponse> {
    const tx = this.tables.read(auth);
    const selection = ruleSelection(dto.rules ?? [], dto.match ?? DEFAULT_MATCH, ruleScope(tx), new Date());
    const scan = this.scans.in(tx);
    const [count, first] = await Promise.all([
      scan.count(selection),
      scan.page(selection, {
        limit: PREVIEW_CUSTOMERS,
        direction: 'DESC',
        sortKey: '-id',
        floor: null,
        withTotal: false,
      }),
    ]);
    return toAudiencePreviewResponse(
      { count, evaluable: selection.evaluable, computedAt: selection.now },
      first.rows.map(toCustomerResponse),
    );
  }

  private async count(tx: TenantReads, selection: Selection): Promise<AudienceCountResponse> {
    const count = await this.scans.in(tx).count(selection);
    return toAudienceCountResponse({ count, evaluable: selection.evaluable, computedAt: selection.now });
  }

  private async members(tx: TenantReads, selection: Selection, query: ListQueryDto): Promise<Page<CustomerResponse>> {
    const { rows, meta } = await this.scans.in(tx).page(selection, memberPageRequest(query));
    return new Page(rows.map(toCustomerResponse), meta);
  }

  private async audience(tx: TenantReads, id: number, now: Date): Promise<Selection> {
    const audience = await tx.table(Audience).findById(id);
    if (!audience) throw new RecordNotFound('audience');
    return (await audienceSelections(tx, [audience], now)).get(audience.id)!;
  }

  /** The sub-audience's audience, narrowed by its segment_definition. */
  private async subAudience(tx: TenantReads, id: number, now: Date): Promise<Selection> {
    const sub = await tx.table(SubAudience).findById(id);
    if (!sub) throw new RecordNotFound('sub-audience');
    const selection = await this.audience(tx, sub.audience_id, now);
    return narrowed(selection, sub.segment_definition, ruleScope(tx));
  }
}
