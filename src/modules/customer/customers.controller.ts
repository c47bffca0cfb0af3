import { Body, Controller, Delete, Get, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope } from '../../common/openapi/api-envelope.decorator.js';
import { ErrorBodyDto } from '../../common/openapi/common-responses.js';
import { CustomerMergeDto, CustomerMergeMeta } from './dto/customer-merge.dto.js';
import { CustomerMergeService, type MergeAnswer } from './merge/customer-merge.service.js';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { RequirePermission } from '../../common/auth/require-permission.decorator.js';
import type { Page } from '../../common/http/page.js';
import { ApiCreate, ApiDelete, ApiList, ApiRead, ApiUpdate } from '../../common/openapi/route-docs.js';
import { ApiIdParam, IdParam } from '../../common/resources/id-param.js';
import { CustomersService } from './customers.service.js';
import { CustomerDto, CustomerListQueryDto } from './dto/customer.dto.js';
import { CustomerResponse } from './dto/customer.response.js';
import {
  ConditionalRequests,
  IdempotentReplays,
  ResponseMessage,
  SuccessStatus,
} from '../../common/http/route-behaviour.js';

@ApiTags('Customers')
@Controller()
export class CustomersController {
  constructor(
    private readonly customers: CustomersService,
    private readonly merges: CustomerMergeService,
  ) {}

  @Get('customers')
  @RequirePermission('customers.view')
  @ApiList(CustomerResponse, 'List customers')
  listCustomers(@Auth() auth: AuthContext, @Query() query: CustomerListQueryDto): Promise<Page<CustomerResponse>> {
    return this.customers.list(auth, query);
  }

  @Post('customers')
  @RequirePermission('customers.manage')
  @ApiCreate(CustomerResponse, 'Create a customer')
  @SuccessStatus(201)
  @IdempotentReplays()
  createCustomer(@Auth() auth: AuthContext, @Body() dto: CustomerDto): Promise<CustomerResponse> {
    return this.customers.create(auth, dto);
  }

  @Get('customers/:id')
  @RequirePermission('customers.view')
  @ApiIdParam('id')
  @ApiRead(CustomerResponse, 'Read a customer')
  @ConditionalRequests()
  getCustomer(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<CustomerResponse> {
    return this.customers.get(auth, id);
  }

  @Put('customers/:id')
  @RequirePermission('customers.manage')
  @ApiIdParam('id')
  @ApiUpdate(CustomerResponse, 'Update a customer')
  @ConditionalRequests()
  updateCustomer(
    @Auth() auth: AuthContext,
    @IdParam('id') id: number,
    @Body() dto: CustomerDto,
  ): Promise<CustomerResponse> {
    return this.customers.update(auth, id, dto);
  }

  @Post('customers/:id/merge')
  @RequirePermission('customers.manage')
  @ApiIdParam('id')
  @ApiOperation({
    summary: 'Merge customers into this one',
    description:
      'Each empty field of this customer takes the first non-empty value among `from`, in order; a conflict keeps ' +
      "this customer's value unless `prefer` is `source`; `attributes` objects merge key by key under the same rule; " +
      '`external_id` moves only where this customer has none. The sources are deleted in the same transaction ' +
      '(`customer.deleted` with `reason: "merged"` and `merged_into`). With `dry_run`, nothing is written. ' +
      'A source listed twice, this customer itself, or a customer the tenant does not have: 422 on `from`; ' +
      'this customer merged away meanwhile: 409.',
  })
  @ApiEnvelope(CustomerResponse, { meta: CustomerMergeMeta })
  @ApiResponse({ status: 409, description: 'This customer was merged into another one', type: ErrorBodyDto })
  @SuccessStatus(200)
  @ResponseMessage('Customers merged.')
  @IdempotentReplays()
  mergeCustomers(
    @Auth() auth: AuthContext,
    @IdParam('id') id: number,
    @Body() dto: CustomerMergeDto,
  ): Promise<MergeAnswer> {
    return this.merges.merge(auth, id, dto);
  }

  @Delete('customers/:id')
  @RequirePermission('customers.manage')
  @ApiIdParam('id')
  @ApiDelete('Delete a customer')
  @ConditionalRequests()
  deleteCustomer(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<null> {
    return this.customers.delete(auth, id);
  }
}
