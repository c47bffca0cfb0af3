import { Body, Controller, Delete, Get, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { RequirePermission } from '../../common/auth/require-permission.decorator.js';
import type { Page } from '../../common/http/page.js';
import { ApiEnvelope } from '../../common/openapi/api-envelope.decorator.js';
import { ApiCreate, ApiDelete, ApiList, ApiRead, ApiUpdate } from '../../common/openapi/route-docs.js';
import { ApiIdParam, IdParam } from '../../common/resources/id-param.js';
import { ListQueryDto, NamedListQueryDto } from '../../common/resources/list-query.dto.js';
import { CustomerResponse } from '../customer/dto/customer.response.js';
import { AudienceMembersService } from './audience-members.service.js';
import { AudiencesService } from './audiences.service.js';
import { AudienceDto, AudienceSelectionDto } from './dto/audience.dto.js';
import { AudienceResponse } from './dto/audience.response.js';
import { AudienceCountResponse, AudiencePreviewResponse } from './dto/members.response.js';
import {
  ConditionalRequests,
  IdempotentReplays,
  ResponseMessage,
  SuccessStatus,
} from '../../common/http/route-behaviour.js';

@ApiTags('Audiences')
@Controller()
export class AudiencesController {
  constructor(
    private readonly audiences: AudiencesService,
    private readonly members: AudienceMembersService,
  ) {}

  @Get('audiences')
  @RequirePermission('audiences.view')
  @ApiList(AudienceResponse, 'List audiences')
  listAudiences(@Auth() auth: AuthContext, @Query() query: NamedListQueryDto): Promise<Page<AudienceResponse>> {
    return this.audiences.list(auth, query);
  }

  @Post('audiences')
  @RequirePermission('audiences.manage')
  @ApiCreate(AudienceResponse, 'Create an audience')
  @SuccessStatus(201)
  @IdempotentReplays()
  createAudience(@Auth() auth: AuthContext, @Body() dto: AudienceDto): Promise<AudienceResponse> {
    return this.audiences.create(auth, dto);
  }

  @Post('audiences/preview')
  @SuccessStatus(200)
  @ResponseMessage('Preview computed.')
  @RequirePermission('audiences.view')
  @ApiOperation({ summary: 'Count and show the first customers that rules would select, saving nothing' })
  @ApiEnvelope(AudiencePreviewResponse)
  @IdempotentReplays()
  previewAudience(@Auth() auth: AuthContext, @Body() dto: AudienceSelectionDto): Promise<AudiencePreviewResponse> {
    return this.members.preview(auth, dto);
  }

  @Get('audiences/:id/count')
  @RequirePermission('audiences.view')
  @ApiIdParam('id')
  @ApiRead(AudienceCountResponse, 'Count the customers an audience selects')
  @ConditionalRequests()
  countAudience(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<AudienceCountResponse> {
    return this.members.countAudience(auth, id);
  }

  @Get('audiences/:id/customers')
  @RequirePermission('audiences.view')
  @ApiIdParam('id')
  @ApiList(CustomerResponse, 'List the customers an audience selects (newest first; sort `-id` or `id`)')
  listAudienceCustomers(
    @Auth() auth: AuthContext,
    @IdParam('id') id: number,
    @Query() query: ListQueryDto,
  ): Promise<Page<CustomerResponse>> {
    return this.members.audienceCustomers(auth, id, query);
  }

  @Get('audiences/:id')
  @RequirePermission('audiences.view')
  @ApiIdParam('id')
  @ApiRead(AudienceResponse, 'Read an audience')
  @ConditionalRequests()
  getAudience(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<AudienceResponse> {
    return this.audiences.get(auth, id);
  }

  @Put('audiences/:id')
  @RequirePermission('audiences.manage')
  @ApiIdParam('id')
  @ApiUpdate(AudienceResponse, 'Update an audience (rules, when sent, replace the set)')
  @ConditionalRequests()
  updateAudience(
    @Auth() auth: AuthContext,
    @IdParam('id') id: number,
    @Body() dto: AudienceDto,
  ): Promise<AudienceResponse> {
    return this.audiences.update(auth, id, dto);
  }

  @Delete('audiences/:id')
  @RequirePermission('audiences.manage')
  @ApiIdParam('id')
  @ApiDelete('Delete an audience (409 while a campaign or sub-audience uses it)')
  @ConditionalRequests()
  deleteAudience(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<null> {
    return this.audiences.delete(auth, id);
  }
}
