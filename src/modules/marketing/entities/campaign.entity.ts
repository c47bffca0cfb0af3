import { Entity } from 'typeorm';
import { ForeignIdColumn, TextColumn } from '../../../common/database/columns.js';
import { PlanEntity } from './plan.entity.js';

@Entity('campaigns')
export class Campaign extends PlanEntity {
  @ForeignIdColumn()
  campaign_group_id: number;

  @TextColumn({ nullable: true })
  target_audience: string | null;

  @TextColumn({ nullable: true })
  success_criteria: string | null;
}
