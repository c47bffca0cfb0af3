import { Column, Entity } from 'typeorm';
import { ForeignIdColumn, IdColumn, Timestamped } from '../../../common/persistence/columns.js';
import { SortKeyColumn } from '../../../common/persistence/sort-key.js';
import { InternalColumn } from '../../../common/persistence/version-counter.js';

const limit = () => ForeignIdColumn({ nullable: true });

@Entity('tenants')
export class Tenant extends Timestamped {
  @IdColumn()
  id: number;

  @Column({ type: 'varchar', length: 255 })
  name: string;

  @SortKeyColumn('name')
  name_key: string | null;

  @Column({ type: 'varchar', length: 255, nullable: true })
  description: string | null;

  @Column({ type: 'boolean', default: true })
  is_active: boolean;

  // The plan's limits (docs/plans-and-usage.md): null is unlimited.
  @limit()
  limit_api_calls_per_day: number | null;

  @limit()
  limit_customers: number | null;

  @limit()
  limit_audiences: number | null;

  @limit()
  limit_campaigns: number | null;

  @limit()
  limit_webhooks: number | null;

  @limit()
  limit_tracked_events_per_day: number | null;

  /** Values the tenant ever put on its suppression list (never lowered): 0 spares its customer writes the list's read. */
  @InternalColumn({ type: 'int', unsigned: true, default: 0 })
  suppressions_listed: number;
}
