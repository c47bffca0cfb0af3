import { Body, Controller, Delete, Get, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { RequirePermission } from '../../common/auth/require-permission.decorator.js';
import type { Page } from '../../common/http/page.js';
import { ApiEnvelope } from '../../common/openapi/api-envelope.decorator.js';
import { ErrorBodyDto } from '../../common/openapi/common-responses.js';

import { ApiIdParam, IdParam } from '../../common/resources/id-param.js';
import { CreateUserDto, UpdateUserDto, UserListQueryDto } from './dto/user.dto.js';
import { UserResponse } from '../auth/dto/user.response.js';
import { UsersService } from './users.service.js';
import { ConditionalRequests, IdempotentReplays, SuccessStatus } from '../../common/http/route-behaviour.js';

@ApiTags('Admin: users')
@Controller('admin/users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Get()
  @RequirePermission('users.view')
  @ApiOperation({ summary: "List the tenant's users" })
  @ApiEnvelope(UserResponse, { list: 'page' })
  listUsers(@Auth() auth: AuthContext, @Query() query: UserListQueryDto): Promise<Page<UserResponse>> {
    return this.users.list(auth, query);
  }

  @Post()
  @RequirePermission('users.manage')
  @ApiOperation({ summary: 'Create a user in the tenant' })
  @ApiEnvelope(UserResponse, { status: 201 })
  @SuccessStatus(201)
  @IdempotentReplays()
  createUser(@Auth() auth: AuthContext, @Body() dto: CreateUserDto): Promise<UserResponse> {
    return this.users.create(auth, dto);
  }

  @Get(':user_id')
  @RequirePermission('users.view')
  @ApiIdParam('user_id')
  @ApiOperation({ summary: 'Read a user' })
  @ApiEnvelope(UserResponse)
  @ConditionalRequests()
  getUser(@Auth() auth: AuthContext, @IdParam('user_id') id: number): Promise<UserResponse> {
    return this.users.get(auth, id);
  }

  @Put(':user_id')
  @RequirePermission('users.manage')
  @ApiIdParam('user_id')
  @ApiOperation({ summary: 'Update a user (deactivating revokes their tokens; own account: 409)' })
  @ApiEnvelope(UserResponse)
  @ConditionalRequests()
  @ApiResponse({ status: 409, description: 'The caller tried to deactivate their own account', type: ErrorBodyDto })
  updateUser(
    @Auth() auth: AuthContext,
    @IdParam('user_id') id: number,
    @Body() dto: UpdateUserDto,
  ): Promise<UserResponse> {
    return this.users.update(auth, id, dto);
  }

  @Delete(':user_id')
  @RequirePermission('users.manage')
  @ApiIdParam('user_id')
  @ApiOperation({ summary: 'Delete a user (own account: 409)' })
  @ApiEnvelope(null)
  @ConditionalRequests()
  deleteUser(@Auth() auth: AuthContext, @IdParam('user_id') id: number): Promise<null> {
    return this.users.delete(auth, id);
  }
}
