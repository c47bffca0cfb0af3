import { Body, Controller, Delete, Get, Post, Put, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { RequirePermission } from '../../common/auth/require-permission.decorator.js';
import type { Page } from '../../common/http/page.js';
import { ApiCreate, ApiDelete, ApiList, ApiRead, ApiUpdate } from '../../common/openapi/route-docs.js';
import { ApiIdParam, IdParam } from '../../common/resources/id-param.js';
import { NamedListQueryDto } from '../../common/resources/list-query.dto.js';
import { CampaignKpisService } from './campaign-kpis.service.js';
import { CampaignKpiDto } from './dto/campaign-children.dto.js';
import { CampaignKpiResponse } from './dto/marketing.responses.js';
import { ConditionalRequests, IdempotentReplays, SuccessStatus } from '../../common/http/route-behaviour.js';

@ApiTags('KPIs and customer goals')
@Controller()
export class CampaignKpisController {
  constructor(private readonly kpis: CampaignKpisService) {}

  @Get('campaigns/:campaign_id/kpis')
  @RequirePermission('marketing.view')
  @ApiIdParam('campaign_id')
  @ApiList(CampaignKpiResponse, 'List campaign KPIs')
  listCampaignKpis(
    @Auth() auth: AuthContext,
    @IdParam('campaign_id') campaignId: number,
    @Query() query: NamedListQueryDto,
  ): Promise<Page<CampaignKpiResponse>> {
    return this.kpis.list(auth, query, campaignId);
  }

  @Post('campaigns/:campaign_id/kpis')
  @RequirePermission('marketing.manage')
  @ApiIdParam('campaign_id')
  @ApiCreate(CampaignKpiResponse, 'Create a campaign KPI')
  @SuccessStatus(201)
  @IdempotentReplays()
  createCampaignKpi(
    @Auth() auth: AuthContext,
    @IdParam('campaign_id') campaignId: number,
    @Body() dto: CampaignKpiDto,
  ): Promise<CampaignKpiResponse> {
    return this.kpis.create(auth, dto, campaignId);
  }

  @Get('campaign-kpis/:kpi_id')
  @RequirePermission('marketing.view')
  @ApiIdParam('kpi_id')
  @ApiRead(CampaignKpiResponse, 'Read a campaign KPI')
  @ConditionalRequests()
  getCampaignKpi(@Auth() auth: AuthContext, @IdParam('kpi_id') id: number): Promise<CampaignKpiResponse> {
    return this.kpis.get(auth, id);
  }

  @Put('campaign-kpis/:kpi_id')
  @RequirePermission('marketing.manage')
  @ApiIdParam('kpi_id')
  @ApiUpdate(CampaignKpiResponse, 'Update a campaign KPI')
  @ConditionalRequests()
  updateCampaignKpi(
    @Auth() auth: AuthContext,
    @IdParam('kpi_id') id: number,
    @Body() dto: CampaignKpiDto,
  ): Promise<CampaignKpiResponse> {
    return this.kpis.update(auth, id, dto);
  }

  @Delete('campaign-kpis/:kpi_id')
  @RequirePermission('marketing.manage')
  @ApiIdParam('kpi_id')
  @ApiDelete('Delete a campaign KPI')
  @ConditionalRequests()
  deleteCampaignKpi(@Auth() auth: AuthContext, @IdParam('kpi_id') id: number): Promise<null> {
    return this.kpis.delete(auth, id);
  }
}
