import { Entity } from 'typeorm';
import { ForeignIdColumn, TextColumn } from '../../../common/persistence/columns.js';
import { VersionCounterColumn } from '../../../common/persistence/version-counter.js';
import { PlanEntity } from './plan.entity.js';

@Entity('campaigns')
export class Campaign extends PlanEntity {
  @ForeignIdColumn()
  campaign_group_id: number;

  @TextColumn({ nullable: true })
  target_audience: string | null;

  @TextColumn({ nullable: true })
  success_criteria: string | null;

  /** Incremented by every write of the campaign's treatment groups (their allocation rule). */
  @VersionCounterColumn()
  allocation_version: number;

  /** Incremented by every write that changes whom the campaign selects or how it assigns them. */
  @VersionCounterColumn()
  selection_version: number;
}
