import { Body, Controller, Delete, Get, Post, Put, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { RequirePermission } from '../../common/auth/require-permission.decorator.js';
import type { Page } from '../../common/http/page.js';
import { ApiCreate, ApiDelete, ApiList, ApiRead, ApiUpdate } from '../../common/openapi/route-docs.js';
import { ApiIdParam, IdParam } from '../../common/resources/id-param.js';
import { NamedListQueryDto } from '../../common/resources/list-query.dto.js';
import { TreatmentGroupDto } from './dto/campaign-children.dto.js';
import { TreatmentGroupResponse } from './dto/marketing.responses.js';
import { TreatmentGroupsService } from './treatment-groups.service.js';
import { ConditionalRequests, IdempotentReplays, SuccessStatus } from '../../common/http/route-behaviour.js';

@ApiTags('Treatment groups')
@Controller()
export class TreatmentGroupsController {
  constructor(private readonly groups: TreatmentGroupsService) {}

  @Get('campaigns/:campaign_id/treatment-groups')
  @RequirePermission('marketing.view')
  @ApiIdParam('campaign_id')
  @ApiList(TreatmentGroupResponse, 'List treatment groups')
  listTreatmentGroups(
    @Auth() auth: AuthContext,
    @IdParam('campaign_id') campaignId: number,
    @Query() query: NamedListQueryDto,
  ): Promise<Page<TreatmentGroupResponse>> {
    return this.groups.list(auth, query, campaignId);
  }

  @Post('campaigns/:campaign_id/treatment-groups')
  @RequirePermission('marketing.manage')
  @ApiIdParam('campaign_id')
  @ApiCreate(TreatmentGroupResponse, 'Create a treatment group')
  @SuccessStatus(201)
  @IdempotentReplays()
  createTreatmentGroup(
    @Auth() auth: AuthContext,
    @IdParam('campaign_id') campaignId: number,
    @Body() dto: TreatmentGroupDto,
  ): Promise<TreatmentGroupResponse> {
    return this.groups.create(auth, dto, campaignId);
  }

  @Get('treatment-groups/:id')
  @RequirePermission('marketing.view')
  @ApiIdParam('id')
  @ApiRead(TreatmentGroupResponse, 'Read a treatment group')
  @ConditionalRequests()
  getTreatmentGroup(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<TreatmentGroupResponse> {
    return this.groups.get(auth, id);
  }

  @Put('treatment-groups/:id')
  @RequirePermission('marketing.manage')
  @ApiIdParam('id')
  @ApiUpdate(TreatmentGroupResponse, 'Update a treatment group')
  @ConditionalRequests()
  updateTreatmentGroup(
    @Auth() auth: AuthContext,
    @IdParam('id') id: number,
    @Body() dto: TreatmentGroupDto,
  ): Promise<TreatmentGroupResponse> {
    return this.groups.update(auth, id, dto);
  }

  @Delete('treatment-groups/:id')
  @RequirePermission('marketing.manage')
  @ApiIdParam('id')
  @ApiDelete('Delete a treatment group')
  @ConditionalRequests()
  deleteTreatmentGroup(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<null> {
    return this.groups.delete(auth, id);
  }
}
