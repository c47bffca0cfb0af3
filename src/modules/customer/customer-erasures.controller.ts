import { Controller, Get, Post } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { RequirePermission } from '../../common/auth/require-permission.decorator.js';
import { IdempotentReplays, ResponseMessage, SuccessStatus } from '../../common/http/route-behaviour.js';
import { ApiEnvelope } from '../../common/openapi/api-envelope.decorator.js';
import { ErrorBodyDto } from '../../common/openapi/common-responses.js';
import { ApiRead } from '../../common/openapi/route-docs.js';
import { ApiIdParam, IdParam } from '../../common/resources/id-param.js';
import { CustomerErasureResponse } from './dto/customer-erasure.response.js';
import { CustomerErasuresService } from './erasure/customer-erasures.service.js';

@ApiTags('Customers')
@Controller()
export class CustomerErasuresController {
  constructor(private readonly erasures: CustomerErasuresService) {}

  @Post('customers/:id/erase')
  @RequirePermission('customers.manage')
  @ApiIdParam('id')
  @ApiOperation({
    summary: "Erase a customer's personal data (GDPR Art. 17)",
    description:
      'Deletes the customer at once (`customer.deleted` with `reason: "erased"`; its activity entry says only ' +
      '`{"erased": true}`) and puts its e-mail address (without case) and external id on the suppression list, so ' +
      'that no create, batch or import brings them back. A job then scrubs what the service keeps about it and the ' +
      'customers merged into it: activity-log entries, change-feed events (tombstones), webhook payloads and ' +
      'answers, answers kept for Idempotency-Key replays, tracked events, and rows of campaign runs (membership, ' +
      'recipient rows, the last record delivered). Follow it at `GET /api/customers/erasures/{job_id}`.',
  })
  @ApiEnvelope(CustomerErasureResponse, {
    status: 202,
    description: 'Accepted: the customer is deleted, the job queued',
  })
  @ApiResponse({ status: 409, description: 'This customer was merged into another one', type: ErrorBodyDto })
  @SuccessStatus(202)
  @ResponseMessage('Erasure queued.')
  @IdempotentReplays()
  eraseCustomer(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<CustomerErasureResponse> {
    return this.erasures.request(auth, id);
  }

  @Get('customers/erasures/:job_id')
  @RequirePermission('customers.view')
  @ApiIdParam('job_id')
  @ApiRead(CustomerErasureResponse, 'Read an erasure job: status and what it scrubbed')
  getCustomerErasure(@Auth() auth: AuthContext, @IdParam('job_id') id: number): Promise<CustomerErasureResponse> {
    return this.erasures.get(auth, id);
  }
}
