import { Entity } from 'typeorm';
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
}

@Entity('customer_goals')
export class CustomerGoal extends CampaignChild {
  @StringColumn()
  goal_type: string;

  @DecimalColumn(15, 2)
  target_value: number;

  @ForeignIdColumn({ nullable: true })
  validation_rule_id: number | null;
}
