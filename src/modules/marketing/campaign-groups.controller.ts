import { Body, Controller, Delete, Get, Post, Put, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { RequirePermission } from '../../common/auth/require-permission.decorator.js';
import type { Page } from '../../common/http/page.js';
import { ApiCreate, ApiDelete, ApiList, ApiRead, ApiUpdate } from '../../common/openapi/route-docs.js';
import { ApiIdParam, IdParam } from '../../common/resources/id-param.js';
import { CampaignGroupsService } from './campaign-groups.service.js';
import { CampaignGroupResponse } from './dto/marketing.responses.js';
import { PlanDto, PlanListQueryDto } from './dto/plan.dto.js';
import { ConditionalRequests, IdempotentReplays, SuccessStatus } from '../../common/http/route-behaviour.js';

@ApiTags('Campaign groups')
@Controller()
export class CampaignGroupsController {
  constructor(private readonly groups: CampaignGroupsService) {}

  @Get('marketing-programs/:program_id/campaign-groups')
  @RequirePermission('marketing.view')
  @ApiIdParam('program_id')
  @ApiList(CampaignGroupResponse, 'List campaign groups')
  listCampaignGroups(
    @Auth() auth: AuthContext,
    @IdParam('program_id') programId: number,
    @Query() query: PlanListQueryDto,
  ): Promise<Page<CampaignGroupResponse>> {
    return this.groups.list(auth, query, programId);
  }

  @Post('marketing-programs/:program_id/campaign-groups')
  @RequirePermission('marketing.manage')
  @ApiIdParam('program_id')
  @ApiCreate(CampaignGroupResponse, 'Create a campaign group')
  @SuccessStatus(201)
  @IdempotentReplays()
  createCampaignGroup(
    @Auth() auth: AuthContext,
    @IdParam('program_id') programId: number,
    @Body() dto: PlanDto,
  ): Promise<CampaignGroupResponse> {
    return this.groups.create(auth, dto, programId);
  }

  @Get('campaign-groups/:id')
  @RequirePermission('marketing.view')
  @ApiIdParam('id')
  @ApiRead(CampaignGroupResponse, 'Read a campaign group')
  @ConditionalRequests()
  getCampaignGroup(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<CampaignGroupResponse> {
    return this.groups.get(auth, id);
  }

  @Put('campaign-groups/:id')
  @RequirePermission('marketing.manage')
  @ApiIdParam('id')
  @ApiUpdate(CampaignGroupResponse, 'Update a campaign group')
  @ConditionalRequests()
  updateCampaignGroup(
    @Auth() auth: AuthContext,
    @IdParam('id') id: number,
    @Body() dto: PlanDto,
  ): Promise<CampaignGroupResponse> {
    return this.groups.update(auth, id, dto);
  }

  @Delete('campaign-groups/:id')
  @RequirePermission('marketing.manage')
  @ApiIdParam('id')
  @ApiDelete('Delete a campaign group')
  @ConditionalRequests()
  deleteCampaignGroup(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<null> {
    return this.groups.delete(auth, id);
  }
}
