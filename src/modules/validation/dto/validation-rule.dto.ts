import { ListQueryDto } from '../../../common/resources/list-query.dto.js';
import { BooleanField, JsonStringField, StringField } from '../../../common/fields/fields.js';

export class ValidationRuleDto {
  @StringField({ max: 255, example: 'Adults only' })
  name: string;

  @StringField({ required: false, nullable: true })
  description?: string | null;

  @JsonStringField({ example: '{"field":"age","operator":">=","value":18}' })
  rule_definition: string;

  @BooleanField({ required: false })
  is_active?: boolean;
}

export class ValidationRuleListQueryDto extends ListQueryDto {
  @StringField({ required: false, max: 255, description: 'Substring of the name' })
  q?: string;

  @BooleanField({ required: false })
  is_active?: boolean;
}
