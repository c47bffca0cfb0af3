import { BooleanField, EmailField, StringField } from '../../../common/fields/fields.js';

/** The filters of `GET /api/customers` (no paging: an export has every matching row). */
export class CustomerExportQueryDto {
  @StringField({ required: false, max: 255, description: 'Substring of first name, last name, e-mail or external id' })
  q?: string;

  @EmailField({ required: false, description: 'Exact e-mail' })
  email?: string;

  @StringField({ required: false, max: 255, description: 'Exact external id' })
  external_id?: string;

  @BooleanField({ required: false })
  is_active?: boolean;
}
