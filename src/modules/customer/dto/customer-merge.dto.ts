import { ApiProperty } from '@nestjs/swagger';
import { BooleanField, IdArrayField, StringField } from '../../../common/fields/fields.js';
import { MERGE_PREFERENCES, type MergePreference } from '../merge/merge-plan.js';

export const MAX_MERGE_SOURCES = 50;

export class CustomerMergeDto {
  @IdArrayField({
    max: MAX_MERGE_SOURCES,
    description: 'The customers merged into this one and deleted: other customers of the tenant, each once',
    example: [1043, 1044],
  })
  from: number[];

  @StringField({
    required: false,
    in: MERGE_PREFERENCES,
    description: "Whose value a conflict keeps: the surviving customer's (default) or the first source's",
  })
  prefer?: MergePreference;

  @BooleanField({ required: false, description: 'Answer what the survivor would become, writing nothing' })
  dry_run?: boolean;
}

export class CustomerMergeMeta {
  @ApiProperty({ type: [Number], description: 'The ids merged into the customer (with dry_run: that would be)' })
  merged: number[];
}
