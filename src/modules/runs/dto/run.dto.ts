import { BooleanField, IdField, StringField } from '../../../common/fields/fields.js';
import { ListQueryDto } from '../../../common/resources/list-query.dto.js';
import { RECIPIENT_STATUSES, type RecipientStatus } from '../entities/campaign-run.entity.js';

export class RunLaunchDto {
  @BooleanField({
    required: false,
    description: 'Compute everything (the members, the counts) and deliver nothing (default false)',
  })
  dry_run?: boolean;
}

export class RecipientsQueryDto extends ListQueryDto {
  @StringField({ required: false, in: RECIPIENT_STATUSES })
  status?: RecipientStatus;

  @IdField({ required: false, description: 'Only this association’s recipients' })
  campaign_destination_id?: number;

  @IdField({ required: false, description: 'Only this treatment group’s recipients' })
  treatment_group_id?: number;
}
