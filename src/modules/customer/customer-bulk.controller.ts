import { Body, Controller, Get, Headers, Post, Query, Res } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiHeader,
  ApiOperation,
  ApiProduces,
  ApiResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import type { Readable } from 'node:stream';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { RequirePermission } from '../../common/auth/require-permission.decorator.js';
import type { Page } from '../../common/http/page.js';
import { CustomerBatchService } from './bulk/customer-batch.service.js';
import { CustomerBatchCounts, CustomerBatchDto, CustomerBatchResult } from './dto/customer-batch.dto.js';
import { CustomerExportQueryDto } from './dto/customer-export.dto.js';
import { CustomerResponse } from './dto/customer.response.js';
import { CustomerExportService } from './export/customer-export.service.js';
import { IdempotentReplays, ResponseMessage, SuccessStatus } from '../../common/http/route-behaviour.js';

const NDJSON = 'application/x-ndjson';

@ApiTags('Customers')
@Controller()
export class CustomerBulkController {
  constructor(
    private readonly batches: CustomerBatchService,
    private readonly exports: CustomerExportService,
  ) {}

  @Post('customers/batch')
  @IdempotentReplays()
  @SuccessStatus(200)
  @RequirePermission('customers.manage')
  @ResponseMessage('Batch processed.')
  @ApiOperation({
    summary: 'Create or update up to 1,000 customers',
    description:
      'Upserts by `external_id`: an item whose `external_id` names a customer of the tenant updates the fields it ' +
      'sends (as PUT does); any other item creates a customer. An invalid item fails alone; the valid items are ' +
      'written together in one transaction. Of two items with the same `external_id`, the later one fails. ' +
      'One activity-log entry per created or updated customer, all with the request id as `batch_uuid`. ' +
      'The call counts once against the rate limit. The body must fit in 1 MiB.',
  })
  @ApiExtraModels(CustomerBatchResult, CustomerBatchCounts)
  @ApiResponse({
    status: 200,
    description: 'One result per item, in order',
    schema: {
      type: 'object',
      required: ['code', 'message', 'data', 'meta'],
      properties: {
        code: { type: 'integer', example: 200 },
        message: { type: 'string' },
        data: { type: 'array', items: { $ref: getSchemaPath(CustomerBatchResult) } },
        meta: { $ref: getSchemaPath(CustomerBatchCounts) },
      },
    },
  })
  upsertCustomerBatch(
    @Auth() auth: AuthContext,
    @Body() dto: CustomerBatchDto,
  ): Promise<Page<CustomerBatchResult, CustomerBatchCounts>> {
    return this.batches.upsert(auth, dto);
  }

  @Get('customers/export')
  @RequirePermission('customers.view')
  @ApiOperation({
    summary: 'Export customers as CSV or NDJSON',
    description:
      'Streams every customer of the tenant that matches the filters of `GET /api/customers`, in id order. CSV ' +
      '(the default) has the columns of an import plus `id`, so that the file imports back into the same tenant ' +
      'with every row `unchanged`; `Accept: application/x-ndjson` gives one customer record per line instead.',
  })
  @ApiHeader({ name: 'accept', required: false, description: `\`text/csv\` (default) or \`${NDJSON}\`` })
  @ApiProduces('text/csv', NDJSON)
  @ApiExtraModels(CustomerResponse)
  @ApiResponse({
    status: 200,
    description: 'The customers, streamed (no envelope)',
    headers: {
      'content-disposition': {
        description: 'attachment; filename="customers.csv" (or customers.ndjson)',
        schema: { type: 'string' },
      },
    },
    content: {
      'text/csv': {
        schema: {
          type: 'string',
          example:
            'id,external_id,first_name,last_name,email,phone,attributes,is_active\n1,crm-1,Ada,,ada@example.com,,,true\n',
        },
      },
      [NDJSON]: {
        schema: {
          type: 'string',
          description: `One customer record (${getSchemaPath(CustomerResponse)}) per line`,
          example: '{"id":1,"external_id":"crm-1",...}\n',
        },
      },
    },
  })
  exportCustomers(
    @Auth() auth: AuthContext,
    @Query() query: CustomerExportQueryDto,
    @Headers('accept') accept: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Readable {
    const ndjson = (accept ?? '').toLowerCase().includes(NDJSON);
    reply.header('content-type', ndjson ? `${NDJSON}; charset=utf-8` : 'text/csv; charset=utf-8');
    reply.header('content-disposition', `attachment; filename="customers.${ndjson ? 'ndjson' : 'csv'}"`);
    return this.exports.stream(auth, query, ndjson ? 'ndjson' : 'csv');
  }
}
