import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { RecordNotFound } from '../../common/http/api-exception.js';
import type { TenantReads, TenantTx } from '../../common/persistence/tables.js';
import { quote } from '../../common/persistence/table-gateway.js';
import { TreatmentGroup } from '../marketing/entities/campaign-children.entity.js';
import { campaignsChanged, SELECTION_VERSION_COLUMN } from '../marketing/campaign-selection-version.js';
import { Campaign } from '../marketing/entities/campaign.entity.js';
import { readCampaignLinks, type CampaignLink } from './audience-selection.js';
import { CampaignAudience } from './entities/audience.entity.js';

/** What decides a campaign's assignments, as of `campaigns.selection_version` = `version`. */
export interface CampaignDefinition {
  version: number;
  /** Ordered by id: the order their bucket ranges follow. */
  groups: TreatmentGroup[];
  links: CampaignLink[];
}

/** Campaigns whose definitions one process keeps; each entry is a few hundred bytes to a few KB. */
const CACHED_CAMPAIGNS = 10_000;

/**
 * Campaign definitions read once per change: an entry is used only when the lookup's own
 * statement reads the same `selection_version` (TreatmentAssignmentsService), so a change made on
 * any instance takes effect on the next lookup everywhere.
 */
@Injectable()
export class CampaignDefinitions {
  private readonly cache = new LRUCache<string, CampaignDefinition>({ max: CACHED_CAMPAIGNS });

  /** The definition this process last read, whatever its version (the caller checks it). */
  cached(tx: TenantReads, campaignId: number): CampaignDefinition | undefined {
    return this.cache.get(key(tx, campaignId));
  }

  /**
   * Reads the definition: the version with the groups in one statement, then the links. A write
   * between the two makes the links newer than the version they are kept under, which only costs
   * one more read. 404 when the tenant has no such campaign.
   */
  async load(tx: TenantReads, campaignId: number): Promise<CampaignDefinition> {
    const [campaigns, groups] = [tx.table(Campaign), tx.table(TreatmentGroup)];
    const [k, g] = [quote(campaigns.spec.table), quote(groups.spec.table)];
    const [campaignScope, groupScope] = [campaigns.scope(k), groups.scope(g)];
    const rows = await tx.select<Record<string, unknown>>(
      `SELECT ${k}.${SELECTION_VERSION_COLUMN} AS campaign_version, ${groups.spec.selectList(g)}
         FROM ${k} LEFT JOIN ${g} ON ${g}.campaign_id = ${k}.id AND ${groupScope.sql}
        WHERE ${k}.id = ? AND ${campaignScope.sql}
        ORDER BY ${g}.id`,
      [...groupScope.params, campaignId, ...campaignScope.params],
    );
    if (rows.length === 0) throw new RecordNotFound('campaign');
    const definition: CampaignDefinition = {
      version: Number(rows[0].campaign_version),
      groups: rows.filter((row) => row.id !== null).map((row) => groups.spec.normalize(row)),
      links: await readCampaignLinks(tx, campaignId),
    };
    this.cache.set(key(tx, campaignId), definition);
    return definition;
  }
}

/** Makes the kept definitions of every campaign an audience is linked to stale (its rules or match changed). */
export async function audienceChanged(tx: TenantTx, audienceId: number): Promise<void> {
  const links = await tx.table(CampaignAudience).findWhere({ audience_id: audienceId });
  await campaignsChanged(
    tx,
    links.map((link) => link.campaign_id),
  );
}

const key = (tx: TenantReads, campaignId: number) => `${tx.auth.tenantId}:${campaignId}`;
