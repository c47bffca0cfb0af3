import { Body, Controller, Delete, Get, Post, Put, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { RequirePermission } from '../../common/auth/require-permission.decorator.js';
import type { Page } from '../../common/http/page.js';
import { ApiCreate, ApiDelete, ApiList, ApiRead, ApiUpdate } from '../../common/openapi/route-docs.js';
import { ApiIdParam, IdParam } from '../../common/resources/id-param.js';
import { CustomersService } from './customers.service.js';
import { CustomerDto, CustomerListQueryDto } from './dto/customer.dto.js';
import { CustomerResponse } from './dto/customer.response.js';
import { ConditionalRequests, IdempotentReplays, SuccessStatus } from '../../common/http/route-behaviour.js';

@ApiTags('Customers')
@Controller()
export class CustomersController {
  constructor(private readonly customers: CustomersService) {}

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

  @Delete('customers/:id')
  @RequirePermission('customers.manage')
  @ApiIdParam('id')
  @ApiDelete('Delete a customer')
  @ConditionalRequests()
  deleteCustomer(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<null> {
    return this.customers.delete(auth, id);
  }
}
