import { EmailField, StringField } from '../../../common/fields/fields.js';

export class ForgotPasswordDto {
  @EmailField({ description: 'E-mail address of an existing user' })
  email: string;
}

export class ResetPasswordDto {
  @StringField({ max: 255, description: 'The `token` parameter of the link in the reset e-mail' })
  token: string;

  @EmailField()
  email: string;

  @StringField({ min: 8, max: 255, example: 'new-secret-password' })
  password: string;
}
