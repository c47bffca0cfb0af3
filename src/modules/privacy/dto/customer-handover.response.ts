import { ApiProperty } from '@nestjs/swagger';
import { ActivityLogResponse } from '../../admin/dto/activity-log.dto.js';
import type { AssignmentResponse } from '../../audience/dto/assignment.response.js';
import type { Audience } from '../../audience/entities/audience.entity.js';
import { CustomerResponse } from '../../customer/dto/customer.response.js';
import { EventResponse } from '../../events/dto/event.dto.js';
import { CustomerEventResponse } from '../../tracking/dto/customer-event.dto.js';

/** An audience whose rules select the customer now. */
export class HandoverAudience {
  @ApiProperty() id: number;
  @ApiProperty() name: string;
}

/** The customer's place in one campaign of the tenant. */
export class HandoverTreatmentGroup {
  @ApiProperty() campaign_id: number;
  @ApiProperty({ description: "Member of at least one of the campaign's audiences (after segment_override)" })
  eligible: boolean;
  @ApiProperty({ type: Number, nullable: true, description: 'null when not eligible or held out' })
  treatment_group_id: number | null;
}

/** `data` of `GET /api/customers/{id}/export`: what the service holds about one customer. */
export class CustomerHandoverResponse {
  @ApiProperty({ type: CustomerResponse, description: 'The record as `GET /api/customers/{id}` answers it' })
  customer: CustomerResponse;

  @ApiProperty({
    type: [HandoverAudience],
    description:
      "Every audience of the tenant whose rules select the customer now, by id (a campaign's sub-audiences are not included)",
  })
  audiences: HandoverAudience[];

  @ApiProperty({
    type: [HandoverTreatmentGroup],
    description:
      'One entry per campaign of the tenant, by campaign id, as `GET /api/campaigns/{id}/assignments/{customer_id}` answers it',
  })
  treatment_groups: HandoverTreatmentGroup[];

  @ApiProperty({
    type: [ActivityLogResponse],
    description:
      'Every activity-log entry about the customer, oldest first, as `GET /api/admin/activity-log` answers it',
  })
  activity: ActivityLogResponse[];

  @ApiProperty({
    type: [EventResponse],
    description: 'Every change-feed event about the customer, oldest first, as `GET /api/events` answers it',
  })
  events: EventResponse[];

  @ApiProperty({
    type: [CustomerEventResponse],
    description:
      'Every tracked event of the customer (`POST /api/track`), oldest first, as `GET /api/customer-events/{id}` answers it',
  })
  customer_events: CustomerEventResponse[];
}

export const toHandoverAudience = (audience: Pick<Audience, 'id' | 'name'>): HandoverAudience => ({
  id: audience.id,
  name: audience.name,
});

export const toHandoverTreatmentGroup = (assignment: AssignmentResponse): HandoverTreatmentGroup => ({
  campaign_id: assignment.campaign_id,
  eligible: assignment.eligible,
  treatment_group_id: assignment.treatment_group_id,
});
