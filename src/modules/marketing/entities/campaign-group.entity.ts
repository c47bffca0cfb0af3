import { Entity } from 'typeorm';
import { ForeignIdColumn } from '../../../common/persistence/columns.js';
import { PlanEntity } from './plan.entity.js';

@Entity('campaign_groups')
export class CampaignGroup extends PlanEntity {
  @ForeignIdColumn()
  marketing_program_id: number;
}
