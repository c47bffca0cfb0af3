import { Column, Entity } from 'typeorm';
import { DecimalColumn, ForeignIdColumn, StringColumn, TextColumn } from '../../../common/persistence/columns.js';
import { TenantOwnedEntity } from '../../../common/persistence/tenant-owned.entity.js';
import { SortKeyColumn } from '../../../common/persistence/sort-key.js';

/** Base of the records that live inside one campaign. */
export abstract class CampaignChild extends TenantOwnedEntity {
  @ForeignIdColumn()
  campaign_id: number;

  @StringColumn()
  name: string;

  @SortKeyColumn('name')
  name_key: string | null;

  @TextColumn({ nullable: true })
  description: string | null;
}

@Entity('treatment_groups')
export class TreatmentGroup extends CampaignChild {
  @StringColumn()
  type: string;

  @DecimalColumn(5, 2)
  allocation_percentage: number;
}

@Entity('campaign_kpis')
export class CampaignKpi extends CampaignChild {
  @StringColumn()
  kpi_type: string;

  @DecimalColumn(15, 2)
  target_value: number;

  @DecimalColumn(15, 2, { nullable: true })
  actual_value: number | null;

  /** The goal of the same campaign the KPI is measured on (migration 1765800000000). */
  @ForeignIdColumn({ nullable: true })
  goal_id: number | null;
}

@Entity('customer_goals')
export class CustomerGoal extends CampaignChild {
  @StringColumn()
  goal_type: string;

  @DecimalColumn(15, 2)
  target_value: number;

  @ForeignIdColumn({ nullable: true })
  validation_rule_id: number | null;

  /** Measured by events of this name (docs/campaign-results.md); null: not by events. */
  @StringColumn(255, { nullable: true })
  event: string | null;

  /** The API's `where`: the events' property conditions, as JSON array text (null: none). */
  @TextColumn({ nullable: true })
  conditions: string | null;

  /** Days after the delivery (or the snapshot) a conversion still counts, 1 to 30. */
  @Column({ type: 'int', default: 3 })
  window_days: number;

  /** The numeric event property summed as the goal's value (`revenue`, `order.total`). */
  @StringColumn(255, { nullable: true })
  value_property: string | null;
}
