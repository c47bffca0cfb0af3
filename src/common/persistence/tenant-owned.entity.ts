import { ForeignIdColumn, IdColumn, Timestamped } from './columns.js';

/** Base of every tenant-owned record: id, tenant_id, created_at, updated_at. */
export abstract class TenantOwnedEntity extends Timestamped {
  @IdColumn()
  id: number;

  @ForeignIdColumn()
  tenant_id: number;
}
