import { ApiProperty } from '@nestjs/swagger';
import type { TreatmentGroup } from '../../marketing/entities/campaign-children.entity.js';

export class AssignmentResponse {
  @ApiProperty() campaign_id: number;
  @ApiProperty() customer_id: number;
  @ApiProperty({ description: "Member of at least one of the campaign's audiences (after segment_override)" })
  eligible: boolean;
  @ApiProperty({
    minimum: 0,
    maximum: 9999,
    description: 'First 4 bytes of SHA-256("<campaign_id>:<customer_id>"), unsigned big-endian, modulo 10,000',
  })
  bucket: number;
  @ApiProperty({ type: Number, nullable: true, description: 'null when not eligible or held out' })
  treatment_group_id: number | null;
}

export class AssignmentGroupResponse {
  @ApiProperty() treatment_group_id: number;
  @ApiProperty() name: string;
  @ApiProperty() allocation_percentage: number;
  @ApiProperty({ description: 'Eligible customers assigned to the group' }) customers: number;
}

export class AssignmentSummaryResponse {
  @ApiProperty({ description: 'Customers eligible for the campaign' }) eligible: number;
  @ApiProperty({ description: 'Eligible customers whose bucket is past the last group' }) held_out: number;
  @ApiProperty({ type: [AssignmentGroupResponse], description: 'Groups ordered by id' })
  groups: AssignmentGroupResponse[];
}

export interface Assignment {
  campaignId: number;
  customerId: number;
  eligible: boolean;
  bucket: number;
  groupId: number | null;
}

export const toAssignmentResponse = (assignment: Assignment): AssignmentResponse => ({
  campaign_id: assignment.campaignId,
  customer_id: assignment.customerId,
  eligible: assignment.eligible,
  bucket: assignment.bucket,
  treatment_group_id: assignment.eligible ? assignment.groupId : null,
});

export const toAssignmentGroupResponse = (group: TreatmentGroup, customers: number): AssignmentGroupResponse => ({
  treatment_group_id: group.id,
  name: group.name,
  allocation_percentage: Number(group.allocation_percentage),
  customers,
});

export const toAssignmentSummaryResponse = (
  eligible: number,
  heldOut: number,
  groups: AssignmentGroupResponse[],
): AssignmentSummaryResponse => ({ eligible, held_out: heldOut, groups });
