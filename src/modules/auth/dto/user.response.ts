import { ApiProperty } from '@nestjs/swagger';
import { toIso } from '../../../common/http/serialize.js';
import type { User } from '../entities/user.entity.js';

export class UserResponse {
  @ApiProperty() id: number;
  @ApiProperty() tenant_id: number;
  @ApiProperty() name: string;
  @ApiProperty({ format: 'email' }) email: string;
  @ApiProperty() is_active: boolean;
  @ApiProperty({ type: [String], example: ['manager'] }) roles: string[];
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) created_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) updated_at: string | null;
}

export class CurrentUserResponse extends UserResponse {
  @ApiProperty({ type: [String], example: ['marketing.view'] }) permissions: string[];
}

/** The §3 user shape; never a password, hash or token. */
export function toUserResponse(user: User, roles: string[]): UserResponse {
  return {
    id: user.id,
    tenant_id: user.tenant_id,
    name: user.name,
    email: user.email,
    is_active: user.is_active,
    roles: [...roles].sort(),
    created_at: toIso(user.created_at),
    updated_at: toIso(user.updated_at),
  };
}
