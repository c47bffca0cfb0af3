import { Body, Controller, Delete, Get, Post, Query } from '@nestjs/common';
import { ApiExtraModels, ApiTags } from '@nestjs/swagger';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { RequirePermission } from '../../common/auth/require-permission.decorator.js';
import type { Page } from '../../common/http/page.js';
import { ApiCreate, ApiDelete, ApiList } from '../../common/openapi/route-docs.js';
import { ApiIdParam, IdParam } from '../../common/resources/id-param.js';
import { NamedListQueryDto } from '../../common/resources/list-query.dto.js';
import { CampaignAudiencesService } from './campaign-audiences.service.js';
import { CampaignAudienceDto } from './dto/audience.dto.js';
import { CampaignAudienceResponse } from './dto/audience.response.js';
import { CONDITION_TREE_MODELS } from './dto/condition-tree.schema.js';
import { ConditionalRequests, IdempotentReplays, SuccessStatus } from '../../common/http/route-behaviour.js';

/** The tree schemas document the JSON that segment_override and segment_definition texts may hold. */
@ApiTags('Audiences')
@ApiExtraModels(...CONDITION_TREE_MODELS)
@Controller()
export class CampaignAudiencesController {
  constructor(private readonly links: CampaignAudiencesService) {}

  @Get('campaigns/:campaign_id/audiences')
  @RequirePermission('audiences.view')
  @ApiIdParam('campaign_id')
  @ApiList(CampaignAudienceResponse, 'List the audiences of a campaign')
  listCampaignAudiences(
    @Auth() auth: AuthContext,
    @IdParam('campaign_id') campaignId: number,
    @Query() query: NamedListQueryDto,
  ): Promise<Page<CampaignAudienceResponse>> {
    return this.links.list(auth, campaignId, query);
  }

  @Post('campaigns/:campaign_id/audiences')
  @RequirePermission('audiences.manage')
  @ApiIdParam('campaign_id')
  @ApiCreate(CampaignAudienceResponse, 'Associate an audience with a campaign')
  @SuccessStatus(201)
  @IdempotentReplays()
  addCampaignAudience(
    @Auth() auth: AuthContext,
    @IdParam('campaign_id') campaignId: number,
    @Body() dto: CampaignAudienceDto,
  ): Promise<CampaignAudienceResponse> {
    return this.links.create(auth, campaignId, dto);
  }

  @Delete('campaigns/:campaign_id/audiences/:audience_id')
  @RequirePermission('audiences.manage')
  @ApiIdParam('campaign_id')
  @ApiIdParam('audience_id')
  @ApiDelete('Remove an audience from a campaign')
  @ConditionalRequests()
  removeCampaignAudience(
    @Auth() auth: AuthContext,
    @IdParam('campaign_id') campaignId: number,
    @IdParam('audience_id') audienceId: number,
  ): Promise<null> {
    return this.links.removeByTarget(auth, campaignId, audienceId);
  }
}
