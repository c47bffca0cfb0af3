import { Entity } from 'typeorm';
import { ForeignIdColumn, TextColumn } from '../../../common/data/columns.js';
import { TenantOwnedEntity } from '../../../common/data/tenant-owned.entity.js';

@Entity('campaign_validation_rules')
export class CampaignValidationRule extends TenantOwnedEntity {
  @ForeignIdColumn()
  campaign_id: number;

  @ForeignIdColumn()
  validation_rule_id: number;

  @TextColumn({ nullable: true })
  rule_override: string | null;
}
