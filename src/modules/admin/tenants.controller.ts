import { Body, Controller, Delete, Get, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { RequirePermission } from '../../common/auth/require-permission.decorator.js';
import type { Page } from '../../common/http/page.js';
import { ApiEnvelope } from '../../common/openapi/api-envelope.decorator.js';
import { ErrorBodyDto } from '../../common/openapi/common-responses.js';

import { ApiIdParam, IdParam } from '../../common/resources/id-param.js';
import { TenantDto, TenantListQueryDto, TenantResponse } from './dto/tenant.dto.js';
import { TenantsService } from './tenants.service.js';
import { ConditionalRequests, IdempotentReplays, SuccessStatus } from '../../common/http/route-behaviour.js';

@ApiTags('Admin: tenants')
@Controller('admin/tenants')
export class TenantsController {
  constructor(private readonly tenants: TenantsService) {}

  @Get()
  @RequirePermission('tenants.view')
  @ApiOperation({ summary: 'List tenants (super-admin)' })
  @ApiEnvelope(TenantResponse, { list: 'page' })
  listTenants(@Auth() auth: AuthContext, @Query() query: TenantListQueryDto): Promise<Page<TenantResponse>> {
    return this.tenants.list(auth, query);
  }

  @Post()
  @RequirePermission('tenants.manage')
  @ApiOperation({ summary: 'Create a tenant (super-admin)' })
  @ApiEnvelope(TenantResponse, { status: 201 })
  @SuccessStatus(201)
  @IdempotentReplays()
  createTenant(@Auth() auth: AuthContext, @Body() dto: TenantDto): Promise<TenantResponse> {
    return this.tenants.create(auth, dto);
  }

  @Get(':tenant_id')
  @RequirePermission('tenants.view')
  @ApiIdParam('tenant_id')
  @ApiOperation({ summary: 'Read a tenant (super-admin)' })
  @ApiEnvelope(TenantResponse)
  @ConditionalRequests()
  getTenant(@Auth() auth: AuthContext, @IdParam('tenant_id') id: number): Promise<TenantResponse> {
    return this.tenants.get(auth, id);
  }

  @Put(':tenant_id')
  @RequirePermission('tenants.manage')
  @ApiIdParam('tenant_id')
  @ApiOperation({ summary: 'Update a tenant (deactivating locks its users out)' })
  @ApiEnvelope(TenantResponse)
  @ConditionalRequests()
  @ApiResponse({ status: 409, description: 'The caller tried to deactivate their own tenant', type: ErrorBodyDto })
  updateTenant(
    @Auth() auth: AuthContext,
    @IdParam('tenant_id') id: number,
    @Body() dto: TenantDto,
  ): Promise<TenantResponse> {
    return this.tenants.update(auth, id, dto);
  }

  @Delete(':tenant_id')
  @RequirePermission('tenants.manage')
  @ApiIdParam('tenant_id')
  @ApiOperation({ summary: 'Delete a tenant (409 while it has users)' })
  @ApiEnvelope(null)
  @ConditionalRequests()
  deleteTenant(@Auth() auth: AuthContext, @IdParam('tenant_id') id: number): Promise<null> {
    return this.tenants.delete(auth, id);
  }
}
