import { ApiProperty } from '@nestjs/swagger';
import { ListQueryDto } from '../../../common/resources/list-query.dto.js';
import { StringField } from '../../../common/validation/fields.js';

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

export class NamedListQueryDto extends ListQueryDto {
  @StringField({ required: false, max: 255, description: 'Substring of the name' })
  q?: string;
}
