import { Body, Controller, Delete, Get, Post, Put, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { RequirePermission } from '../../common/auth/require-permission.decorator.js';
import type { Page } from '../../common/http/page.js';
import { ApiCreate, ApiDelete, ApiList, ApiRead, ApiUpdate } from '../../common/openapi/route-docs.js';
import { ApiIdParam, IdParam } from '../../common/resources/id-param.js';
import { ListQueryDto, NamedListQueryDto } from '../../common/resources/list-query.dto.js';
import { CustomerResponse } from '../customer/dto/customer.response.js';
import { AudienceMembersService } from './audience-members.service.js';
import { CreateSubAudienceDto, UpdateSubAudienceDto } from './dto/audience.dto.js';
import { SubAudienceResponse } from './dto/audience.response.js';
import { AudienceCountResponse } from './dto/members.response.js';
import { SubAudiencesService } from './sub-audiences.service.js';
import { ConditionalRequests, IdempotentReplays, SuccessStatus } from '../../common/http/route-behaviour.js';

@ApiTags('Audiences')
@Controller()
export class SubAudiencesController {
  constructor(
    private readonly subAudiences: SubAudiencesService,
    private readonly members: AudienceMembersService,
  ) {}

  @Get('campaigns/:campaign_id/sub-audiences')
  @RequirePermission('audiences.view')
  @ApiIdParam('campaign_id')
  @ApiList(SubAudienceResponse, 'List sub-audiences')
  listSubAudiences(
    @Auth() auth: AuthContext,
    @IdParam('campaign_id') campaignId: number,
    @Query() query: NamedListQueryDto,
  ): Promise<Page<SubAudienceResponse>> {
    return this.subAudiences.list(auth, query, campaignId);
  }

  @Post('campaigns/:campaign_id/sub-audiences')
  @RequirePermission('audiences.manage')
  @ApiIdParam('campaign_id')
  @ApiCreate(SubAudienceResponse, 'Create a sub-audience')
  @SuccessStatus(201)
  @IdempotentReplays()
  createSubAudience(
    @Auth() auth: AuthContext,
    @IdParam('campaign_id') campaignId: number,
    @Body() dto: CreateSubAudienceDto,
  ): Promise<SubAudienceResponse> {
    return this.subAudiences.create(auth, dto, campaignId);
  }

  @Get('sub-audiences/:id')
  @RequirePermission('audiences.view')
  @ApiIdParam('id')
  @ApiRead(SubAudienceResponse, 'Read a sub-audience')
  @ConditionalRequests()
  getSubAudience(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<SubAudienceResponse> {
    return this.subAudiences.get(auth, id);
  }

  @Get('sub-audiences/:id/count')
  @RequirePermission('audiences.view')
  @ApiIdParam('id')
  @ApiRead(AudienceCountResponse, "Count the customers a sub-audience selects (its audience's, narrowed)")
  @ConditionalRequests()
  countSubAudience(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<AudienceCountResponse> {
    return this.members.countSubAudience(auth, id);
  }

  @Get('sub-audiences/:id/customers')
  @RequirePermission('audiences.view')
  @ApiIdParam('id')
  @ApiList(CustomerResponse, 'List the customers a sub-audience selects (newest first; sort `-id` or `id`)')
  listSubAudienceCustomers(
    @Auth() auth: AuthContext,
    @IdParam('id') id: number,
    @Query() query: ListQueryDto,
  ): Promise<Page<CustomerResponse>> {
    return this.members.subAudienceCustomers(auth, id, query);
  }

  @Put('sub-audiences/:id')
  @RequirePermission('audiences.manage')
  @ApiIdParam('id')
  @ApiUpdate(SubAudienceResponse, 'Update a sub-audience')
  @ConditionalRequests()
  updateSubAudience(
    @Auth() auth: AuthContext,
    @IdParam('id') id: number,
    @Body() dto: UpdateSubAudienceDto,
  ): Promise<SubAudienceResponse> {
    return this.subAudiences.update(auth, id, dto);
  }

  @Delete('sub-audiences/:id')
  @RequirePermission('audiences.manage')
  @ApiIdParam('id')
  @ApiDelete('Delete a sub-audience')
  @ConditionalRequests()
  deleteSubAudience(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<null> {
    return this.subAudiences.delete(auth, id);
  }
}
