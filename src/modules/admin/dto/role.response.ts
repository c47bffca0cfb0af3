import { ApiProperty } from '@nestjs/swagger';

export class RoleResponse {
  @ApiProperty() id: number;
  @ApiProperty({ example: 'manager' }) name: string;
  @ApiProperty({ example: 'api' }) guard_name: string;
  @ApiProperty({ type: [String], example: ['marketing.view', 'marketing.manage'] }) permissions: string[];
}

export class PermissionResponse {
  @ApiProperty() id: number;
  @ApiProperty({ example: 'marketing.view' }) name: string;
  @ApiProperty({ example: 'api' }) guard_name: string;
}
