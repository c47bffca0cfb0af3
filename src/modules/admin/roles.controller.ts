import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { RequirePermission } from '../../common/auth/require-permission.decorator.js';
import type { Page } from '../../common/http/page.js';
import { ApiEnvelope } from '../../common/openapi/api-envelope.decorator.js';
import { NamedListQueryDto } from '../../common/resources/list-query.dto.js';
import { PermissionResponse, RoleResponse } from './dto/role.response.js';
import { RolesService } from './roles.service.js';

@ApiTags('Admin: roles and permissions')
@Controller('admin')
export class RolesController {
  constructor(private readonly roles: RolesService) {}

  @Get('roles')
  @RequirePermission('roles.view')
  @ApiOperation({ summary: 'List roles with their permissions' })
  @ApiEnvelope(RoleResponse, { list: 'page' })
  listRoles(@Auth() auth: AuthContext, @Query() query: NamedListQueryDto): Promise<Page<RoleResponse>> {
    return this.roles.listRoles(auth, query);
  }

  @Get('permissions')
  @RequirePermission('roles.view')
  @ApiOperation({ summary: 'List permissions' })
  @ApiEnvelope(PermissionResponse, { list: 'page' })
  listPermissions(@Auth() auth: AuthContext, @Query() query: NamedListQueryDto): Promise<Page<PermissionResponse>> {
    return this.roles.listPermissions(auth, query);
  }
}
