import { Body, Controller, Delete, Get, Post, Put, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { RequirePermission } from '../../common/auth/require-permission.decorator.js';
import type { Page } from '../../common/http/page.js';
import { ApiCreate, ApiDelete, ApiList, ApiRead, ApiUpdate } from '../../common/openapi/route-docs.js';
import { ApiIdParam, IdParam } from '../../common/resources/id-param.js';
import { DestinationsService } from './destinations.service.js';
import { DestinationDto, DestinationListQueryDto } from './dto/destination.dto.js';
import { DestinationResponse } from './dto/destination.response.js';
import { ConditionalRequests, IdempotentReplays, SuccessStatus } from '../../common/http/route-behaviour.js';

@ApiTags('Destinations')
@Controller()
export class DestinationsController {
  constructor(private readonly destinations: DestinationsService) {}

  @Get('destinations')
  @RequirePermission('destinations.view')
  @ApiList(DestinationResponse, 'List destinations')
  listDestinations(
    @Auth() auth: AuthContext,
    @Query() query: DestinationListQueryDto,
  ): Promise<Page<DestinationResponse>> {
    return this.destinations.list(auth, query);
  }

  @Post('destinations')
  @RequirePermission('destinations.manage')
  @ApiCreate(DestinationResponse, 'Create a destination')
  @SuccessStatus(201)
  @IdempotentReplays()
  createDestination(@Auth() auth: AuthContext, @Body() dto: DestinationDto): Promise<DestinationResponse> {
    return this.destinations.create(auth, dto);
  }

  @Get('destinations/:id')
  @RequirePermission('destinations.view')
  @ApiIdParam('id')
  @ApiRead(DestinationResponse, 'Read a destination')
  @ConditionalRequests()
  getDestination(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<DestinationResponse> {
    return this.destinations.get(auth, id);
  }

  @Put('destinations/:id')
  @RequirePermission('destinations.manage')
  @ApiIdParam('id')
  @ApiUpdate(DestinationResponse, 'Update a destination')
  @ConditionalRequests()
  updateDestination(
    @Auth() auth: AuthContext,
    @IdParam('id') id: number,
    @Body() dto: DestinationDto,
  ): Promise<DestinationResponse> {
    return this.destinations.update(auth, id, dto);
  }

  @Delete('destinations/:id')
  @RequirePermission('destinations.manage')
  @ApiIdParam('id')
  @ApiDelete('Delete a destination (409 while a campaign uses it)')
  @ConditionalRequests()
  deleteDestination(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<null> {
    return this.destinations.delete(auth, id);
  }
}
