import { Controller, Get, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { Readable } from 'node:stream';
import { Auth, type AuthContext } from '../../../common/auth/auth-context.js';
import { RequirePermission } from '../../../common/auth/require-permission.decorator.js';
import { ApiEnvelope } from '../../../common/openapi/api-envelope.decorator.js';
import { ApiIdParam, IdParam } from '../../../common/resources/id-param.js';
import { CustomerHandoverResponse } from '../dto/customer-handover.response.js';
import { CustomerHandoverService } from './customer-handover.service.js';

/** A customer's data, handed over to the customer (GDPR Art. 15 access, Art. 20 portability). */
@ApiTags('Customers')
@Controller()
export class CustomerHandoverController {
  constructor(private readonly handovers: CustomerHandoverService) {}

  // Not `customers/:id/export`: beside `customers/imports/:id` that path is ambiguous (both match
  // `customers/imports/export`), which Redocly's recommended rules refuse (test/openapi.e2e-spec.ts).
  @Get('customers/:id/export')
  @RequirePermission('customers.view')
  @ApiIdParam('id')
  @ApiOperation({
    summary: 'Export everything held about a customer (GDPR hand-over)',
    description:
      'One JSON document in the success envelope: the record as `GET /api/customers/{id}` answers it, the ' +
      'audiences whose rules select the customer now, its eligibility and treatment group in every campaign, and ' +
      'every activity-log entry and change-feed event about it, oldest first. Streamed: the document is written ' +
      'while it is read, so it is not one snapshot (a change made meanwhile may show in the history but not in ' +
      'the record), and a failure after the first byte ends the answer early, as invalid JSON. Not cached.',
  })
  @ApiEnvelope(CustomerHandoverResponse, {
    description: 'The hand-over document, streamed',
    headers: {
      'content-disposition': {
        description: 'attachment; filename="customer-<id>.json"',
        schema: { type: 'string' },
      },
      'cache-control': { description: 'no-store: personal data is kept by no cache', schema: { type: 'string' } },
    },
  })
  async exportCustomerData(
    @Auth() auth: AuthContext,
    @IdParam('id') id: number,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Readable> {
    const document = await this.handovers.export(auth, id);
    reply.header('content-type', 'application/json; charset=utf-8');
    reply.header('content-disposition', `attachment; filename="customer-${id}.json"`);
    reply.header('cache-control', 'no-store');
    return document;
  }
}
