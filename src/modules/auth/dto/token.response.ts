import { ApiProperty } from '@nestjs/swagger';
import { toIso } from '../../../common/http/serialize.js';

/** One device's personal access token, as its owner sees it: never the token nor its hash. */
export class TokenResponse {
  @ApiProperty() id: number;
  @ApiProperty({ description: 'The `device_name` given at login', example: 'laptop' }) name: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) created_at: string | null;
  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'Last request made with the token (to the minute); null when unused since login',
  })
  last_used_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) expires_at: string | null;
  @ApiProperty({ description: 'True for the token this request was made with' }) current: boolean;
}

export interface TokenRow {
  id: number | string;
  name: string;
  created_at: Date | string | null;
  last_used_at: Date | string | null;
  expires_at: Date | string | null;
}

export function toTokenResponse(row: TokenRow, currentTokenId: number): TokenResponse {
  return {
    id: Number(row.id),
    name: row.name,
    created_at: toIso(row.created_at),
    last_used_at: toIso(row.last_used_at),
    expires_at: toIso(row.expires_at),
    current: Number(row.id) === currentTokenId,
  };
}
