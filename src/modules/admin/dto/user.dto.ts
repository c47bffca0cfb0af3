import { ListQueryDto } from '../../../common/resources/list-query.dto.js';
import { BooleanField, EmailField, StringArrayField, StringField } from '../../../common/fields/fields.js';

const MIN_PASSWORD = 8;

export class CreateUserDto {
  @StringField({ max: 255, example: 'Ada Lovelace' })
  name: string;

  @EmailField()
  email: string;

  @StringField({ min: MIN_PASSWORD, max: 255, example: 'correct horse battery' })
  password: string;

  @StringArrayField({ required: false, description: 'Role names', example: ['manager'] })
  roles?: string[];
}

export class UpdateUserDto {
  @StringField({ max: 255, example: 'Ada Lovelace' })
  name: string;

  @EmailField()
  email: string;

  @StringField({
    required: false,
    nullable: true,
    min: MIN_PASSWORD,
    max: 255,
    description: 'Omit or null to keep the password',
  })
  password?: string | null;

  @StringArrayField({ required: false, description: 'Role names; replaces the set', example: ['viewer'] })
  roles?: string[];

  @BooleanField({ required: false, description: 'false revokes every token of the user' })
  is_active?: boolean;
}

export class UserListQueryDto extends ListQueryDto {
  @StringField({ required: false, max: 255, description: 'Substring of name or e-mail' })
  q?: string;

  @BooleanField({ required: false })
  is_active?: boolean;
}
