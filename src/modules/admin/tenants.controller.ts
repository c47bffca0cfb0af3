import { Body, Controller, Delete, Get, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuthUser } from '../../common/auth/auth-user.js';
import { CurrentUser } from '../../common/auth/current-user.decorator.js';
import { RequirePermission } from '../../common/auth/require-permission.decorator.js';
import type { Page } from '../../common/http/page.js';
import { ApiEnvelope } from '../../common/openapi/api-envelope.decorator.js';
import { ApiIdParam, IdParam } from '../../common/resources/id-param.js';
import { TenantDto, TenantListQueryDto, TenantResponse } from './dto/tenant.dto.js';
import { TenantsService } from './tenants.service.js';

@ApiTags('Admin: tenants')
@Controller('admin/tenants')
export class TenantsController {
  constructor(private readonly tenants: TenantsService) {}

  @Get()
  @RequirePermission('tenants.view')
  @ApiOperation({ summary: 'List tenants (super-admin)' })
  @ApiEnvelope(TenantResponse, { list: 'page' })
  listTenants(@Query() query: TenantListQueryDto): Promise<Page<TenantResponse>> {
    return this.tenants.list(query);
  }

  @Post()
  @RequirePermission('tenants.manage')
  @ApiOperation({ summary: 'Create a tenant (super-admin)' })
  @ApiEnvelope(TenantResponse, { status: 201 })
  createTenant(@Body() dto: TenantDto): Promise<TenantResponse> {
    return this.tenants.create(dto);
  }

  @Get(':tenant_id')
  @RequirePermission('tenants.view')
  @ApiIdParam('tenant_id')
  @ApiOperation({ summary: 'Read a tenant (super-admin)' })
  @ApiEnvelope(TenantResponse)
  getTenant(@IdParam('tenant_id') id: number): Promise<TenantResponse> {
    return this.tenants.get(id);
  }

  @Put(':tenant_id')
  @RequirePermission('tenants.manage')
  @ApiIdParam('tenant_id')
  @ApiOperation({ summary: 'Update a tenant (deactivating locks its users out)' })
  @ApiEnvelope(TenantResponse)
  updateTenant(
    @CurrentUser() caller: AuthUser,
    @IdParam('tenant_id') id: number,
    @Body() dto: TenantDto,
  ): Promise<TenantResponse> {
    return this.tenants.update(caller, id, dto);
  }

  @Delete(':tenant_id')
  @RequirePermission('tenants.manage')
  @ApiIdParam('tenant_id')
  @ApiOperation({ summary: 'Delete a tenant (409 while it has users)' })
  @ApiEnvelope(null)
  async deleteTenant(@IdParam('tenant_id') id: number): Promise<null> {
    await this.tenants.delete(id);
    return null;
  }
}
