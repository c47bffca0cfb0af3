import { Body, Controller, Delete, Get, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuthUser } from '../../common/auth/auth-user.js';
import { CurrentUser } from '../../common/auth/current-user.decorator.js';
import { RequirePermission } from '../../common/auth/require-permission.decorator.js';
import type { Page } from '../../common/http/page.js';
import { ApiEnvelope } from '../../common/openapi/api-envelope.decorator.js';
import { ApiIdParam, IdParam } from '../../common/resources/id-param.js';
import { CreateUserDto, UpdateUserDto, UserListQueryDto } from './dto/user.dto.js';
import { UserResponse } from './dto/user.response.js';
import { UsersService } from './users.service.js';

@ApiTags('Admin: users')
@Controller('admin/users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Get()
  @RequirePermission('users.view')
  @ApiOperation({ summary: "List the tenant's users" })
  @ApiEnvelope(UserResponse, { list: 'page' })
  listUsers(@Query() query: UserListQueryDto): Promise<Page<UserResponse>> {
    return this.users.list(query);
  }

  @Post()
  @RequirePermission('users.manage')
  @ApiOperation({ summary: 'Create a user in the tenant' })
  @ApiEnvelope(UserResponse, { status: 201 })
  createUser(@CurrentUser() caller: AuthUser, @Body() dto: CreateUserDto): Promise<UserResponse> {
    return this.users.create(caller, dto);
  }

  @Get(':user_id')
  @RequirePermission('users.view')
  @ApiIdParam('user_id')
  @ApiOperation({ summary: 'Read a user' })
  @ApiEnvelope(UserResponse)
  getUser(@IdParam('user_id') id: number): Promise<UserResponse> {
    return this.users.get(id);
  }

  @Put(':user_id')
  @RequirePermission('users.manage')
  @ApiIdParam('user_id')
  @ApiOperation({ summary: 'Update a user (deactivating revokes their tokens; own account: 409)' })
  @ApiEnvelope(UserResponse)
  updateUser(
    @CurrentUser() caller: AuthUser,
    @IdParam('user_id') id: number,
    @Body() dto: UpdateUserDto,
  ): Promise<UserResponse> {
    return this.users.update(caller, id, dto);
  }

  @Delete(':user_id')
  @RequirePermission('users.manage')
  @ApiIdParam('user_id')
  @ApiOperation({ summary: 'Delete a user (own account: 409)' })
  @ApiEnvelope(null)
  async deleteUser(@CurrentUser() caller: AuthUser, @IdParam('user_id') id: number): Promise<null> {
    await this.users.delete(caller, id);
    return null;
  }
}
