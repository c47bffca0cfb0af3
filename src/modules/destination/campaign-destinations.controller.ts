import { Body, Controller, Delete, Get, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { RequirePermission } from '../../common/auth/require-permission.decorator.js';
import type { Page } from '../../common/http/page.js';
import { ApiCreate, ApiDelete, ApiList } from '../../common/openapi/route-docs.js';
import { ApiIdParam, IdParam } from '../../common/resources/id-param.js';
import { NamedListQueryDto } from '../../common/resources/list-query.dto.js';
import { CampaignDestinationsService } from './campaign-destinations.service.js';
import { CampaignDestinationDto } from './dto/destination.dto.js';
import { CampaignDestinationResponse } from './dto/destination.response.js';
import { ConditionalRequests, IdempotentReplays, SuccessStatus } from '../../common/http/route-behaviour.js';

@ApiTags('Destinations')
@Controller()
export class CampaignDestinationsController {
  constructor(private readonly links: CampaignDestinationsService) {}

  @Get('campaigns/:campaign_id/destinations')
  @RequirePermission('destinations.view')
  @ApiIdParam('campaign_id')
  @ApiList(CampaignDestinationResponse, 'List the destinations of a campaign')
  listCampaignDestinations(
    @Auth() auth: AuthContext,
    @IdParam('campaign_id') campaignId: number,
    @Query() query: NamedListQueryDto,
  ): Promise<Page<CampaignDestinationResponse>> {
    return this.links.list(auth, campaignId, query);
  }

  @Post('campaigns/:campaign_id/destinations')
  @RequirePermission('destinations.manage')
  @ApiIdParam('campaign_id')
  @ApiCreate(CampaignDestinationResponse, 'Associate a destination with a campaign')
  @SuccessStatus(201)
  @IdempotentReplays()
  addCampaignDestination(
    @Auth() auth: AuthContext,
    @IdParam('campaign_id') campaignId: number,
    @Body() dto: CampaignDestinationDto,
  ): Promise<CampaignDestinationResponse> {
    return this.links.create(auth, campaignId, dto);
  }

  @Delete('campaign-destinations/:campaign_destination_id')
  @RequirePermission('destinations.manage')
  @ApiIdParam('campaign_destination_id')
  @ApiDelete('Remove a destination from a campaign')
  @ConditionalRequests()
  removeCampaignDestination(@Auth() auth: AuthContext, @IdParam('campaign_destination_id') id: number): Promise<null> {
    return this.links.removeById(auth, id);
  }
}
