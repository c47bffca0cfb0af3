import { Controller, Get, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiExtraModels,
  ApiOperation,
  ApiResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { RequirePermission } from '../../common/auth/require-permission.decorator.js';
import { StreamedBody } from '../../common/http/body-parsing.js';
import type { Page } from '../../common/http/page.js';
import { ApiList, ApiRead } from '../../common/openapi/route-docs.js';
import { ValidationErrorBodyDto } from '../../common/openapi/common-responses.js';
import { ApiIdParam, IdParam } from '../../common/resources/id-param.js';
import { ListQueryDto } from '../../common/resources/list-query.dto.js';
import {
  CustomerImportErrorQueryDto,
  CustomerImportErrorResponse,
  CustomerImportResponse,
  CustomerImportUploadQueryDto,
} from './dto/customer-import.dto.js';
import { IMPORT_COLUMNS } from './imports/import-file.js';
import { CustomerImportsService } from './imports/customer-imports.service.js';
import {
  ConditionalRequests,
  IdempotentReplays,
  ResponseMessage,
  SuccessStatus,
} from '../../common/http/route-behaviour.js';

const errorBody = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBodyDto' } } },
});

@ApiTags('Customer imports')
@Controller()
export class CustomerImportsController {
  constructor(private readonly imports: CustomerImportsService) {}

  @Post('customers/imports')
  @IdempotentReplays()
  @SuccessStatus(202)
  @RequirePermission('customers.manage')
  @StreamedBody('text/csv', { responseMessage: 'Import queued.' })
  @ApiOperation({
    summary: 'Import customers from a CSV file',
    description:
      `UTF-8 CSV whose header row names any of ${IMPORT_COLUMNS.map((c) => `\`${c}\``).join(', ')}, in any order. ` +
      'A row with an `id` updates that customer (an unknown id fails the row); a row without one is upserted by ' +
      '`external_id` as in `POST /api/customers/batch`. An empty cell leaves the field as it is on update and null ' +
      'on create. A bad row fails alone, with its line number (see `/errors`); the job goes on. The file is streamed ' +
      'to storage; the job runs in the background: follow it at the `location` answered.',
  })
  @ApiConsumes('text/csv')
  @ApiBody({
    description: 'The CSV file, header row first',
    schema: { type: 'string', example: 'external_id,first_name,email\ncrm-1,Ada,ada@example.com\n' },
  })
  @ApiExtraModels(CustomerImportResponse)
  @ApiResponse({
    status: 202,
    description: 'Accepted: the job is queued',
    headers: { location: { description: 'The job: `/api/customers/imports/{id}`', schema: { type: 'string' } } },
    schema: {
      type: 'object',
      required: ['code', 'message', 'data'],
      properties: {
        code: { type: 'integer', example: 202 },
        message: { type: 'string' },
        data: { $ref: getSchemaPath(CustomerImportResponse) },
      },
    },
  })
  @ApiResponse({ status: 413, ...errorBody('File larger than IMPORT_MAX_BYTES (default 256 MiB)') })
  @ApiResponse({ status: 415, ...errorBody('Body sent with a content type other than text/csv (UTF-8)') })
  @ApiResponse({
    status: 422,
    description: 'No header row, an unknown or repeated column (`errors.header`), or a bad `file_name`',
    type: ValidationErrorBodyDto,
  })
  async createCustomerImport(
    @Auth() auth: AuthContext,
    @Query() query: CustomerImportUploadQueryDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<CustomerImportResponse> {
    const length = request.headers['content-length'];
    const job = await this.imports.upload(
      auth,
      request.body as Readable | undefined,
      query.file_name,
      length === undefined ? undefined : Number(length),
    );
    reply.header('location', `/api/customers/imports/${job.id}`);
    return job;
  }

  @Get('customers/imports')
  @RequirePermission('customers.view')
  @ApiList(CustomerImportResponse, 'List import jobs (newest first)')
  listCustomerImports(@Auth() auth: AuthContext, @Query() query: ListQueryDto): Promise<Page<CustomerImportResponse>> {
    return this.imports.list(auth, query);
  }

  @Get('customers/imports/:id')
  @RequirePermission('customers.view')
  @ApiIdParam('id')
  @ApiRead(CustomerImportResponse, 'Read an import job: status, progress and counts')
  @ConditionalRequests()
  getCustomerImport(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<CustomerImportResponse> {
    return this.imports.get(auth, id);
  }

  @Get('customers/imports/:id/errors')
  @RequirePermission('customers.view')
  @ApiIdParam('id')
  @ApiList(CustomerImportErrorResponse, 'List the failed rows of an import job (file order; `sort=-id` reverses it)')
  listCustomerImportErrors(
    @Auth() auth: AuthContext,
    @IdParam('id') id: number,
    @Query() query: CustomerImportErrorQueryDto,
  ): Promise<Page<CustomerImportErrorResponse>> {
    return this.imports.errors(auth, id, query);
  }

  @Post('customers/imports/:id/cancel')
  @IdempotentReplays()
  @SuccessStatus(200)
  @RequirePermission('customers.manage')
  @ResponseMessage('Import cancelled.')
  @ApiIdParam('id')
  @ApiRead(
    CustomerImportResponse,
    'Cancel an import job (rows already committed stay; 409 once it has completed or failed)',
  )
  @ApiResponse({ status: 409, ...errorBody('The job has already completed or failed') })
  cancelCustomerImport(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<CustomerImportResponse> {
    return this.imports.cancel(auth, id);
  }
}
