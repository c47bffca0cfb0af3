import { Column, Entity } from 'typeorm';
import { ForeignIdColumn, StringColumn, TextColumn } from '../../../common/persistence/columns.js';
import { TenantOwnedEntity } from '../../../common/persistence/tenant-owned.entity.js';
import { SortKeyColumn } from '../../../common/persistence/sort-key.js';

@Entity('destinations')
export class Destination extends TenantOwnedEntity {
  @StringColumn()
  name: string;

  @SortKeyColumn('name')
  name_key: string | null;

  @TextColumn({ nullable: true })
  description: string | null;

  @StringColumn()
  destination_type: string;

  @TextColumn()
  connection_details: string;

  @Column({ type: 'boolean', default: true })
  is_active: boolean;
}

/** A destination configured for a campaign; it has its own key, used to remove it. */
@Entity('campaign_destinations')
export class CampaignDestination extends TenantOwnedEntity {
  @ForeignIdColumn()
  campaign_id: number;

  @ForeignIdColumn()
  destination_id: number;

  @ForeignIdColumn({ nullable: true })
  treatment_group_id: number | null;

  @TextColumn()
  attribute_mapping: string;

  @Column({ type: 'boolean', default: true })
  is_active: boolean;
}
