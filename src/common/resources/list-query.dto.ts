import { BooleanField, NumberField, StringField } from '../fields/fields.js';

export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;

/** The list conventions of API-CONVENTIONS §4; each list's DTO extends it with its filters. */
export class ListQueryDto {
  @NumberField({
    required: false,
    integer: true,
    min: 1,
    max: MAX_PAGE_SIZE,
    description: `Page size (default ${DEFAULT_PAGE_SIZE})`,
  })
  limit?: number;

  @StringField({ required: false, max: 1024, description: 'The `meta.next_cursor` of the previous page' })
  cursor?: string;

  @StringField({ required: false, max: 64, description: '`field` ascending, `-field` descending; default `-id`' })
  sort?: string;

  @BooleanField({ required: false, description: 'Adds `meta.total`' })
  with_total?: boolean;
}

/** Lists whose only filter is `?q=`, a substring of the name. */
export class NamedListQueryDto extends ListQueryDto {
  @StringField({ required: false, max: 255, description: 'Substring of the name' })
  q?: string;
}
