import { Controller, Get } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { RequirePermission } from '../../common/auth/require-permission.decorator.js';
import { ApiRead } from '../../common/openapi/route-docs.js';
import { ApiIdParam, IdParam } from '../../common/resources/id-param.js';
import { AssignmentResponse, AssignmentSummaryResponse } from './dto/assignment.response.js';
import { TreatmentAssignmentsService } from './treatment-assignments.service.js';
import { ConditionalRequests } from '../../common/http/route-behaviour.js';

/** Which treatment group a campaign gives each eligible customer (computed, never stored). */
@ApiTags('Treatment assignment')
@Controller()
export class TreatmentAssignmentsController {
  constructor(private readonly assignments: TreatmentAssignmentsService) {}

  @Get('campaigns/:id/assignments/:customer_id')
  @RequirePermission('marketing.view')
  @ApiIdParam('id', 'Campaign id')
  @ApiIdParam('customer_id', 'Customer id')
  @ApiRead(AssignmentResponse, "A customer's eligibility, bucket and treatment group in a campaign")
  @ConditionalRequests()
  getCampaignAssignment(
    @Auth() auth: AuthContext,
    @IdParam('id') campaignId: number,
    @IdParam('customer_id') customerId: number,
  ): Promise<AssignmentResponse> {
    return this.assignments.assignment(auth, campaignId, customerId);
  }

  @Get('campaigns/:id/assignment-summary')
  @RequirePermission('marketing.view')
  @ApiIdParam('id', 'Campaign id')
  @ApiRead(AssignmentSummaryResponse, "How a campaign's eligible customers divide over its treatment groups")
  @ConditionalRequests()
  getCampaignAssignmentSummary(
    @Auth() auth: AuthContext,
    @IdParam('id') campaignId: number,
  ): Promise<AssignmentSummaryResponse> {
    return this.assignments.summary(auth, campaignId);
  }
}
