import { Body, Controller, Delete, Get, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { RequirePermission } from '../../common/auth/require-permission.decorator.js';
import type { Page } from '../../common/http/page.js';
import { ApiDelete, ApiList, ApiRead, ApiUpdate } from '../../common/openapi/route-docs.js';
import { ApiIdParam, IdParam } from '../../common/resources/id-param.js';
import { DestinationsService } from './destinations.service.js';
import { DestinationDto, DestinationListQueryDto, DestinationTestDto } from './dto/destination.dto.js';
import {
  DestinationCreatedResponse,
  DestinationResponse,
  DestinationTestResponse,
  SigningSecretResponse,
} from './dto/destination.response.js';
import { DestinationTests } from './delivery/destination-tests.js';
import { ConditionalRequests, IdempotentReplays, SuccessStatus } from '../../common/http/route-behaviour.js';
import { ApiEnvelope } from '../../common/openapi/api-envelope.decorator.js';
import { ErrorBodyDto } from '../../common/openapi/common-responses.js';

@ApiTags('Destinations')
@Controller()
export class DestinationsController {
  constructor(
    private readonly destinations: DestinationsService,
    private readonly tests: DestinationTests,
  ) {}

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
  @ApiOperation({
    summary: 'Create a destination',
    description:
      'Any `destination_type` and JSON `connection_details` are stored; what they lack for delivery is answered in ' +
      '`problems`. Secrets are kept encrypted and answered as `********`. A `webhook` destination without ' +
      '`connection_details.secret` gets a generated signing secret: this answer, and rotate-secret, show it.',
  })
  @ApiEnvelope(DestinationCreatedResponse, { status: 201 })
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
  @ApiUpdate(DestinationResponse, 'Update a destination (a secret sent back as ******** keeps its stored value)')
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

  @Post('destinations/:id/rotate-secret')
  @RequirePermission('destinations.manage')
  @ApiIdParam('id')
  @IdempotentReplays()
  @SuccessStatus(200)
  @ApiOperation({
    summary: 'A new signing secret for a webhook destination; the old one keeps signing beside it for 24 hours',
    description:
      'Answers the new `whsec_` secret, shown only here. 409 for a destination of another type, or one whose ' +
      '`connection_details` carry their own `secret`.',
  })
  @ApiEnvelope(SigningSecretResponse)
  @ApiResponse({ status: 409, description: 'Not a webhook destination with a generated secret', type: ErrorBodyDto })
  rotateDestinationSecret(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<SigningSecretResponse> {
    return this.destinations.rotateSecret(auth, id);
  }

  @Post('destinations/:id/test')
  @RequirePermission('destinations.manage')
  @ApiIdParam('id')
  @IdempotentReplays()
  @SuccessStatus(200)
  @ApiOperation({
    summary: 'Deliver one record to the destination through the real path (a test send)',
    description:
      "Maps one customer (`customer_id`, default the tenant's most recently updated) with the mapping of " +
      '`campaign_destination_id` (without one: every customer field under its own name; an email destination ' +
      "needs one) and delivers it as a run would. Answers the receiver's status and answer, delivered or not; a " +
      'destination or association that cannot deliver is a 422 listing its problems (`errors`, by field). Marks ' +
      'nobody delivered and counts toward no frequency cap.',
  })
  @ApiEnvelope(DestinationTestResponse)
  testDestination(
    @Auth() auth: AuthContext,
    @IdParam('id') id: number,
    @Body() dto: DestinationTestDto,
  ): Promise<DestinationTestResponse> {
    return this.tests.test(auth, id, dto);
  }
}
