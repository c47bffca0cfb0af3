import { Entity } from 'typeorm';
import { ForeignIdColumn, IdColumn, StringColumn, TextColumn, Timestamped } from '../../../common/database/columns.js';
import { TenantOwnedEntity } from '../../../common/resources/tenant-owned.entity.js';

@Entity('audiences')
export class Audience extends TenantOwnedEntity {
  @StringColumn()
  name: string;

  @TextColumn({ nullable: true })
  description: string | null;
}

/** One rule of an audience; the set is replaced as a whole by a PUT with `rules`. */
@Entity('audience_rules')
export class AudienceRule extends Timestamped {
  @IdColumn()
  id: number;

  @ForeignIdColumn()
  audience_id: number;

  @StringColumn()
  rule_type: string;

  @StringColumn()
  rule_value: string;
}

@Entity('sub_audiences')
export class SubAudience extends TenantOwnedEntity {
  @ForeignIdColumn()
  campaign_id: number;

  @ForeignIdColumn()
  audience_id: number;

  @StringColumn()
  name: string;

  @TextColumn({ nullable: true })
  description: string | null;

  @TextColumn()
  segment_definition: string;
}

@Entity('campaign_audiences')
export class CampaignAudience extends TenantOwnedEntity {
  @ForeignIdColumn()
  campaign_id: number;

  @ForeignIdColumn()
  audience_id: number;

  @TextColumn({ nullable: true })
  segment_override: string | null;
}
