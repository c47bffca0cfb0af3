import { JsonStringField, StringField } from '../../../common/fields/fields.js';
import { PlanFieldsDto } from './plan.dto.js';

/** A campaign: a plan whose description is optional, with two JSON-string fields of its own. */
export class CampaignDto extends PlanFieldsDto {
  @StringField({ required: false, nullable: true })
  description?: string | null;

  @JsonStringField({ required: false, nullable: true, example: '{"segment":"returning"}' })
  target_audience?: string | null;

  @JsonStringField({ required: false, nullable: true, example: '{"conversion_rate":0.05}' })
  success_criteria?: string | null;
}
