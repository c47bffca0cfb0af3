import { ApiProperty } from '@nestjs/swagger';
import { ListQueryDto } from '../../../common/resources/list-query.dto.js';
import { BooleanField, IdField, JsonStringField, StringField } from '../../../common/validation/fields.js';

export class DestinationDto {
  @StringField({ max: 255, example: 'Newsletter ESP' })
  name: string;

  @StringField({ required: false, nullable: true })
  description?: string | null;

  @StringField({ max: 255, example: 'email' })
  destination_type: string;

  @JsonStringField({ example: '{"endpoint":"https://esp.example.com","list":"spring"}' })
  connection_details: string;

  @BooleanField({ required: false })
  is_active?: boolean;
}

export class DestinationListQueryDto extends ListQueryDto {
  @StringField({ required: false, max: 255, description: 'Substring of the name' })
  q?: string;

  @BooleanField({ required: false })
  is_active?: boolean;
}

export class CampaignDestinationDto {
  @IdField({ description: 'A live destination of the same tenant' })
  destination_id: number;

  @IdField({ required: false, nullable: true, description: 'A treatment group of the same campaign' })
  treatment_group_id?: number | null;

  @JsonStringField({ example: '{"email":"contact_email"}' })
  attribute_mapping: string;

  @BooleanField({ required: false })
  is_active?: boolean;
}

export class DestinationResponse {
  @ApiProperty() id: number;
  @ApiProperty() tenant_id: number;
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty() destination_type: string;
  @ApiProperty({ description: 'JSON text, as sent' }) connection_details: string;
  @ApiProperty() is_active: boolean;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) created_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) updated_at: string | null;
}

export class CampaignDestinationResponse {
  @ApiProperty() id: number;
  @ApiProperty() tenant_id: number;
  @ApiProperty() campaign_id: number;
  @ApiProperty() destination_id: number;
  @ApiProperty({ type: Number, nullable: true }) treatment_group_id: number | null;
  @ApiProperty({ description: 'JSON text, as sent' }) attribute_mapping: string;
  @ApiProperty() is_active: boolean;
  @ApiProperty({ type: DestinationResponse }) destination: DestinationResponse;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) created_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) updated_at: string | null;
}
