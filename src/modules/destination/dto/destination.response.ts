import { ApiProperty } from '@nestjs/swagger';
import { recordFields } from '../../../common/http/record-fields.js';
import type { CampaignDestination, Destination } from '../entities/destination.entity.js';

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

export const toDestinationResponse = (row: Destination): DestinationResponse =>
  recordFields(row, {
    name: row.name,
    description: row.description,
    destination_type: row.destination_type,
    connection_details: row.connection_details,
    is_active: row.is_active,
  });

/** The link record with the destination's record inside it. */
export const toCampaignDestinationResponse = (
  link: CampaignDestination,
  destination: DestinationResponse,
): CampaignDestinationResponse =>
  recordFields(link, {
    campaign_id: link.campaign_id,
    destination_id: link.destination_id,
    treatment_group_id: link.treatment_group_id,
    attribute_mapping: link.attribute_mapping,
    is_active: link.is_active,
    destination,
  });
