import { Inject, Injectable, type Type } from '@nestjs/common';
import type { TenantTx } from '../../common/persistence/tables.js';
import type { TenantOwnedEntity } from '../../common/persistence/tenant-owned.entity.js';
import type { Campaign } from './entities/campaign.entity.js';

/** The tables of the records that live inside a campaign, in the order a campaign's deletion removes them. */
export const CAMPAIGN_CONTENTS = Symbol('CAMPAIGN_CONTENTS');
export type CampaignContents = readonly Type<TenantOwnedEntity & { campaign_id: number }>[];

/**
 * What a campaign takes with it when it is deleted (API-CONVENTIONS §7). The list is declared once,
 * where every module is known: the composition root, src/app.module.ts. Rows are removed one by one
 * through their tenant-scoped table (not left to ON DELETE CASCADE), so that each is logged.
 */
@Injectable()
export class CampaignCascade {
  constructor(@Inject(CAMPAIGN_CONTENTS) private readonly contents: CampaignContents) {}

  async removeContents(campaign: Campaign, tx: TenantTx): Promise<void> {
    for (const entity of this.contents) await tx.table(entity).removeWhere({ campaign_id: campaign.id });
  }
}
