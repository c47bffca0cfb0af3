import { Column } from 'typeorm';
import { DecimalColumn, StringColumn, TextColumn } from '../../../common/persistence/columns.js';
import { TenantOwnedEntity } from '../../../common/persistence/tenant-owned.entity.js';
import { SortKeyColumn } from '../../../common/persistence/sort-key.js';

export const PLAN_STATUSES = ['draft', 'active', 'inactive'] as const;
export type PlanStatus = (typeof PLAN_STATUSES)[number];

/** The fields marketing programs, campaign groups and campaigns share. */
export abstract class PlanEntity extends TenantOwnedEntity {
  @StringColumn()
  name: string;

  @SortKeyColumn('name')
  name_key: string | null;

  @TextColumn({ nullable: true })
  description: string | null;

  @StringColumn(16)
  status: PlanStatus;

  @Column({ type: 'datetime' })
  start_date: Date;

  @Column({ type: 'datetime' })
  end_date: Date;

  @DecimalColumn(15, 2)
  budget: number;

  @StringColumn()
  goal: string;
}
