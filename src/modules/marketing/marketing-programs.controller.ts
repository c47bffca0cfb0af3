import { Body, Controller, Delete, Get, Post, Put, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { RequirePermission } from '../../common/auth/require-permission.decorator.js';
import type { Page } from '../../common/http/page.js';
import { ApiCreate, ApiDelete, ApiList, ApiRead, ApiUpdate } from '../../common/openapi/route-docs.js';
import { ApiIdParam, IdParam } from '../../common/resources/id-param.js';
import { MarketingProgramResponse } from './dto/marketing.responses.js';
import { PlanDto, PlanListQueryDto } from './dto/plan.dto.js';
import { MarketingProgramsService } from './marketing-programs.service.js';
import { ConditionalRequests, IdempotentReplays, SuccessStatus } from '../../common/http/route-behaviour.js';

@ApiTags('Marketing programs')
@Controller()
export class MarketingProgramsController {
  constructor(private readonly programs: MarketingProgramsService) {}

  @Get('marketing-programs')
  @RequirePermission('marketing.view')
  @ApiList(MarketingProgramResponse, 'List marketing programs')
  listMarketingPrograms(
    @Auth() auth: AuthContext,
    @Query() query: PlanListQueryDto,
  ): Promise<Page<MarketingProgramResponse>> {
    return this.programs.list(auth, query);
  }

  @Post('marketing-programs')
  @RequirePermission('marketing.manage')
  @ApiCreate(MarketingProgramResponse, 'Create a marketing program')
  @SuccessStatus(201)
  @IdempotentReplays()
  createMarketingProgram(@Auth() auth: AuthContext, @Body() dto: PlanDto): Promise<MarketingProgramResponse> {
    return this.programs.create(auth, dto);
  }

  @Get('marketing-programs/:id')
  @RequirePermission('marketing.view')
  @ApiIdParam('id')
  @ApiRead(MarketingProgramResponse, 'Read a marketing program')
  @ConditionalRequests()
  getMarketingProgram(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<MarketingProgramResponse> {
    return this.programs.get(auth, id);
  }

  @Put('marketing-programs/:id')
  @RequirePermission('marketing.manage')
  @ApiIdParam('id')
  @ApiUpdate(MarketingProgramResponse, 'Update a marketing program')
  @ConditionalRequests()
  updateMarketingProgram(
    @Auth() auth: AuthContext,
    @IdParam('id') id: number,
    @Body() dto: PlanDto,
  ): Promise<MarketingProgramResponse> {
    return this.programs.update(auth, id, dto);
  }

  @Delete('marketing-programs/:id')
  @RequirePermission('marketing.manage')
  @ApiIdParam('id')
  @ApiDelete('Delete a marketing program')
  @ConditionalRequests()
  deleteMarketingProgram(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<null> {
    return this.programs.delete(auth, id);
  }
}
