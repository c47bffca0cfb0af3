import { EmailField, StringField } from '../../../common/fields/fields.js';

export class LoginDto {
  @EmailField()
  email: string;

  @StringField({ max: 255, example: 'secret-password' })
  password: string;

  @StringField({ max: 255, example: 'ada-laptop', description: 'Names the token; one token per device' })
  device_name: string;
}
