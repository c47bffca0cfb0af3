import { Injectable } from '@nestjs/common';
import type { EntityManager, EntityTarget, ObjectLiteral } from 'typeorm';
import { CampaignKpi, CustomerGoal, TreatmentGroup } from './entities/campaign-children.entity.js';
import type { Campaign } from './entities/campaign.entity.js';

/**
 * What a campaign takes with it when it is deleted. Rows are removed through the entity manager
 * (not left to ON DELETE CASCADE) so that each removal is in the activity log.
 */
@Injectable()
export class CampaignCascade {
  private readonly contents: EntityTarget<ObjectLiteral>[] = [TreatmentGroup, CampaignKpi, CustomerGoal];

  /** Other modules (audiences, destinations, validation rules) add the campaign rows they own. */
  register(entity: EntityTarget<ObjectLiteral>): void {
    if (!this.contents.includes(entity)) this.contents.unshift(entity);
  }

  async removeContents(campaign: Campaign, manager: EntityManager): Promise<void> {
    for (const entity of this.contents) {
      const rows = await manager.find(entity, { where: { campaign_id: campaign.id } });
      if (rows.length) await manager.remove(entity, rows);
    }
  }
}
