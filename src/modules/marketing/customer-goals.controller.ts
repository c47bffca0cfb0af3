import { Body, Controller, Delete, Get, Post, Put, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { RequirePermission } from '../../common/auth/require-permission.decorator.js';
import type { Page } from '../../common/http/page.js';
import { ApiCreate, ApiDelete, ApiList, ApiUpdate } from '../../common/openapi/route-docs.js';
import { ApiIdParam, IdParam } from '../../common/resources/id-param.js';
import { NamedListQueryDto } from '../../common/resources/list-query.dto.js';
import { CustomerGoalsService } from './customer-goals.service.js';
import { CustomerGoalDto } from './dto/campaign-children.dto.js';
import { CustomerGoalResponse } from './dto/marketing.responses.js';
import { ConditionalRequests, IdempotentReplays, SuccessStatus } from '../../common/http/route-behaviour.js';

/** INTERFACE.md lists no route to read one customer goal. */
@ApiTags('KPIs and customer goals')
@Controller()
export class CustomerGoalsController {
  constructor(private readonly goals: CustomerGoalsService) {}

  @Get('campaigns/:campaign_id/customer-goals')
  @RequirePermission('marketing.view')
  @ApiIdParam('campaign_id')
  @ApiList(CustomerGoalResponse, 'List customer goals')
  listCustomerGoals(
    @Auth() auth: AuthContext,
    @IdParam('campaign_id') campaignId: number,
    @Query() query: NamedListQueryDto,
  ): Promise<Page<CustomerGoalResponse>> {
    return this.goals.list(auth, query, campaignId);
  }

  @Post('campaigns/:campaign_id/customer-goals')
  @RequirePermission('marketing.manage')
  @ApiIdParam('campaign_id')
  @ApiCreate(CustomerGoalResponse, 'Create a customer goal')
  @SuccessStatus(201)
  @IdempotentReplays()
  createCustomerGoal(
    @Auth() auth: AuthContext,
    @IdParam('campaign_id') campaignId: number,
    @Body() dto: CustomerGoalDto,
  ): Promise<CustomerGoalResponse> {
    return this.goals.create(auth, dto, campaignId);
  }

  @Put('customer-goals/:goal_id')
  @RequirePermission('marketing.manage')
  @ApiIdParam('goal_id')
  @ApiUpdate(CustomerGoalResponse, 'Update a customer goal')
  @ConditionalRequests()
  updateCustomerGoal(
    @Auth() auth: AuthContext,
    @IdParam('goal_id') id: number,
    @Body() dto: CustomerGoalDto,
  ): Promise<CustomerGoalResponse> {
    return this.goals.update(auth, id, dto);
  }

  @Delete('customer-goals/:goal_id')
  @RequirePermission('marketing.manage')
  @ApiIdParam('goal_id')
  @ApiDelete('Delete a customer goal')
  @ConditionalRequests()
  deleteCustomerGoal(@Auth() auth: AuthContext, @IdParam('goal_id') id: number): Promise<null> {
    return this.goals.delete(auth, id);
  }
}
