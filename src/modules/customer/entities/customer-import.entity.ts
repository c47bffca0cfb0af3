import { Column, Entity } from 'typeorm';
import { ForeignIdColumn, StringColumn, TextColumn, TimestampColumn } from '../../../common/persistence/columns.js';
import { TenantOwnedEntity } from '../../../common/persistence/tenant-owned.entity.js';

export const IMPORT_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];
export const FINISHED_STATUSES: readonly ImportStatus[] = ['completed', 'failed', 'cancelled'];

const count = () => Column({ type: 'bigint', unsigned: true, default: 0 });

/** A CSV import job (migration 1764500000000). */
@Entity('customer_imports')
export class CustomerImport extends TenantOwnedEntity {
  /** The job's own id: its activity-log entry's batch_uuid. */
  @StringColumn(36)
  batch_uuid: string;

  @StringColumn(16)
  status: ImportStatus;

  @StringColumn(255, { nullable: true })
  file_name: string | null;

  /** Relative to STORAGE_DIR; never shown. */
  @StringColumn(255)
  file_path: string;

  @count()
  file_bytes: number;

  @ForeignIdColumn({ nullable: true })
  total_rows: number | null;

  @count()
  processed_rows: number;

  @count()
  created: number;

  @count()
  updated: number;

  @count()
  unchanged: number;

  @count()
  failed: number;

  @TextColumn({ nullable: true })
  error: string | null;

  @ForeignIdColumn({ nullable: true })
  created_by: number | null;

  @TimestampColumn()
  started_at: Date | null;

  @TimestampColumn()
  finished_at: Date | null;
}

/** One error of one failed row of an import. */
@Entity('customer_import_errors')
export class CustomerImportError extends TenantOwnedEntity {
  @ForeignIdColumn()
  import_id: number;

  @ForeignIdColumn()
  line: number;

  @StringColumn(255)
  field: string;

  @TextColumn()
  message: string;
}
