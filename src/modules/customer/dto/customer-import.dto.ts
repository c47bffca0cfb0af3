import { ApiProperty } from '@nestjs/swagger';
import { toIso } from '../../../common/http/serialize.js';
import { ListQueryDto } from '../../../common/resources/list-query.dto.js';
import { StringField } from '../../../common/fields/fields.js';
import {
  IMPORT_STATUSES,
  type CustomerImport,
  type CustomerImportError,
  type ImportStatus,
} from '../entities/customer-import.entity.js';

export class CustomerImportUploadQueryDto {
  @StringField({ required: false, max: 255, example: 'crm-export.csv', description: "Shown as the job's `file_name`" })
  file_name?: string;
}

export class CustomerImportResponse {
  @ApiProperty() id: number;
  @ApiProperty({ enum: IMPORT_STATUSES }) status: ImportStatus;
  @ApiProperty({ type: String, nullable: true }) file_name: string | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Rows after the header, counted at upload; exact once the job has ended',
  })
  total_rows: number | null;
  @ApiProperty({ description: 'Rows committed so far (advances at least once a second while running)' })
  processed_rows: number;
  @ApiProperty() created: number;
  @ApiProperty() updated: number;
  @ApiProperty() unchanged: number;
  @ApiProperty({ description: 'Rows that failed; see `/errors`' }) failed: number;
  @ApiProperty({ type: String, nullable: true, description: 'Why a `failed` job stopped' }) error: string | null;
  @ApiProperty({ type: Number, nullable: true, description: 'The user who uploaded the file' }) created_by:
    number | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) created_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) started_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) finished_at: string | null;
}

export const toCustomerImportResponse = (job: CustomerImport): CustomerImportResponse => ({
  id: job.id,
  status: job.status,
  file_name: job.file_name,
  total_rows: job.total_rows,
  processed_rows: job.processed_rows,
  created: job.created,
  updated: job.updated,
  unchanged: job.unchanged,
  failed: job.failed,
  error: job.error,
  created_by: job.created_by,
  created_at: toIso(job.created_at),
  started_at: toIso(job.started_at),
  finished_at: toIso(job.finished_at),
});

export class CustomerImportErrorResponse {
  @ApiProperty({ description: 'Line of the file where the row starts (the header is line 1)', example: 12 })
  line: number;
  @ApiProperty({ example: 'email', description: 'The field, or `row` when the row itself could not be read' })
  field: string;
  @ApiProperty({ example: 'The email field must be a valid email address.' }) message: string;
}

export const toCustomerImportErrorResponse = (error: CustomerImportError): CustomerImportErrorResponse => ({
  line: error.line,
  field: error.field,
  message: error.message,
});

/** Errors in file order (`sort=id`, the default) or the reverse (`sort=-id`). */
export class CustomerImportErrorQueryDto extends ListQueryDto {}
