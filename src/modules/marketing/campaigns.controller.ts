import { Body, Controller, Delete, Get, Post, Put, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { RequirePermission } from '../../common/auth/require-permission.decorator.js';
import type { Page } from '../../common/http/page.js';
import { ApiCreate, ApiDelete, ApiList, ApiRead, ApiUpdate } from '../../common/openapi/route-docs.js';
import { ApiIdParam, IdParam } from '../../common/resources/id-param.js';
import { CampaignsService } from './campaigns.service.js';
import { CampaignResponse } from './dto/marketing.responses.js';
import { CampaignDto } from './dto/campaign.dto.js';
import { PlanListQueryDto } from './dto/plan.dto.js';
import { ConditionalRequests, IdempotentReplays, SuccessStatus } from '../../common/http/route-behaviour.js';

@ApiTags('Campaigns')
@Controller()
export class CampaignsController {
  constructor(private readonly campaigns: CampaignsService) {}

  @Get('campaign-groups/:group_id/campaigns')
  @RequirePermission('marketing.view')
  @ApiIdParam('group_id')
  @ApiList(CampaignResponse, 'List campaigns')
  listCampaigns(
    @Auth() auth: AuthContext,
    @IdParam('group_id') groupId: number,
    @Query() query: PlanListQueryDto,
  ): Promise<Page<CampaignResponse>> {
    return this.campaigns.list(auth, query, groupId);
  }

  @Post('campaign-groups/:group_id/campaigns')
  @RequirePermission('marketing.manage')
  @ApiIdParam('group_id')
  @ApiCreate(CampaignResponse, 'Create a campaign')
  @SuccessStatus(201)
  @IdempotentReplays()
  createCampaign(
    @Auth() auth: AuthContext,
    @IdParam('group_id') groupId: number,
    @Body() dto: CampaignDto,
  ): Promise<CampaignResponse> {
    return this.campaigns.create(auth, dto, groupId);
  }

  @Get('campaigns/:id')
  @RequirePermission('marketing.view')
  @ApiIdParam('id')
  @ApiRead(CampaignResponse, 'Read a campaign')
  @ConditionalRequests()
  getCampaign(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<CampaignResponse> {
    return this.campaigns.get(auth, id);
  }

  @Put('campaigns/:id')
  @RequirePermission('marketing.manage')
  @ApiIdParam('id')
  @ApiUpdate(CampaignResponse, 'Update a campaign')
  @ConditionalRequests()
  updateCampaign(
    @Auth() auth: AuthContext,
    @IdParam('id') id: number,
    @Body() dto: CampaignDto,
  ): Promise<CampaignResponse> {
    return this.campaigns.update(auth, id, dto);
  }

  @Delete('campaigns/:id')
  @RequirePermission('marketing.manage')
  @ApiIdParam('id')
  @ApiDelete('Delete a campaign')
  @ConditionalRequests()
  deleteCampaign(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<null> {
    return this.campaigns.delete(auth, id);
  }
}
