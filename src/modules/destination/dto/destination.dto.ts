import { ListQueryDto } from '../../../common/resources/list-query.dto.js';
import { BooleanField, IdField, JsonStringField, StringField } from '../../../common/fields/fields.js';

export class DestinationDto {
  @StringField({ max: 255, example: 'Newsletter ESP' })
  name: string;

  @StringField({ required: false, nullable: true })
  description?: string | null;

  @StringField({ max: 255, example: 'email' })
  destination_type: string;

  @JsonStringField({ example: '{"endpoint":"https://esp.example.com","list":"spring"}' })
  connection_details: string;

  @BooleanField({ required: false })
  is_active?: boolean;
}

export class DestinationListQueryDto extends ListQueryDto {
  @StringField({ required: false, max: 255, description: 'Substring of the name' })
  q?: string;

  @BooleanField({ required: false })
  is_active?: boolean;
}

export class CampaignDestinationDto {
  @IdField({ description: 'A live destination of the same tenant' })
  destination_id: number;

  @IdField({ required: false, nullable: true, description: 'A treatment group of the same campaign' })
  treatment_group_id?: number | null;

  @JsonStringField({ example: '{"email":"contact_email"}' })
  attribute_mapping: string;

  @BooleanField({ required: false })
  is_active?: boolean;
}
