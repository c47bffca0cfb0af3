import { ApiProperty } from '@nestjs/swagger';
import { UserResponse } from './user.response.js';

export class LoginResponse {
  @ApiProperty({ description: 'Signed JWT; send it as `Authorization: Bearer <token>`' })
  token: string;

  @ApiProperty({ example: 'Bearer' })
  token_type: 'Bearer';

  @ApiProperty({ format: 'date-time' })
  expires_at: string;

  @ApiProperty({ type: UserResponse })
  user: UserResponse;
}
