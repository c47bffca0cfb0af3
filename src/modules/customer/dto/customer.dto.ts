import { ListQueryDto } from '../../../common/resources/list-query.dto.js';
import { BooleanField, EmailField, JsonStringField, StringField } from '../../../common/fields/fields.js';

const optionalText = { required: false, nullable: true, max: 255 } as const;

/** Every field optional, and the body itself too; a PUT changes only the fields it sends. */
export class CustomerDto {
  @StringField({ ...optionalText, example: 'crm-1042', description: 'Unique within the tenant when given' })
  external_id?: string | null;

  @StringField({ ...optionalText, example: 'Ada' })
  first_name?: string | null;

  @StringField({ ...optionalText, example: 'Lovelace' })
  last_name?: string | null;

  @EmailField({ required: false, nullable: true })
  email?: string | null;

  @StringField({ ...optionalText, example: '+31 20 123 4567' })
  phone?: string | null;

  @JsonStringField({ required: false, nullable: true, example: '{"tier":"gold"}' })
  attributes?: string | null;

  @BooleanField({ required: false })
  is_active?: boolean;
}

export class CustomerListQueryDto extends ListQueryDto {
  @StringField({ required: false, max: 255, description: 'Substring of first name, last name, e-mail or external id' })
  q?: string;

  @EmailField({ required: false, description: 'Exact e-mail' })
  email?: string;

  @StringField({ required: false, max: 255, description: 'Exact external id' })
  external_id?: string;

  @BooleanField({ required: false })
  is_active?: boolean;
}
