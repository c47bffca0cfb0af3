import { Entity } from 'typeorm';
import { ForeignIdColumn, TextColumn } from '../../../common/persistence/columns.js';
import { TenantOwnedEntity } from '../../../common/persistence/tenant-owned.entity.js';

@Entity('campaign_validation_rules')
export class CampaignValidationRule extends TenantOwnedEntity {
  @ForeignIdColumn()
  campaign_id: number;

  @ForeignIdColumn()
  validation_rule_id: number;

  @TextColumn({ nullable: true })
  rule_override: string | null;
}
