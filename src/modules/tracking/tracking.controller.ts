import { Body, Controller, Get, Post, Query } from '@nestjs/common';
import { ApiExtraModels, ApiOperation, ApiResponse, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { RequirePermission } from '../../common/auth/require-permission.decorator.js';
import type { Page } from '../../common/http/page.js';
import { BodyLimit, IdempotentReplays, ResponseMessage, SuccessStatus } from '../../common/http/route-behaviour.js';
import { ApiList, ApiRead } from '../../common/openapi/route-docs.js';
import { ApiIdParam, IdParam } from '../../common/resources/id-param.js';
import { CustomerEventsService } from './customer-events.service.js';
import {
  CustomerEventResponse,
  CustomerEventsQueryDto,
  EventNameResponse,
  EventNamesQueryDto,
  TimelineItemResponse,
  TimelineQueryDto,
} from './dto/customer-event.dto.js';
import { TrackCounts, TrackDto, TrackEventItem, TrackResult } from './dto/track.dto.js';
import { TimelineService } from './timeline/timeline.service.js';
import { MAX_TRACK_BODY_BYTES } from './track-input.js';
import { TrackingService } from './tracking.service.js';

@ApiTags('Customer events')
@Controller()
export class TrackingController {
  constructor(
    private readonly tracking: TrackingService,
    private readonly events: CustomerEventsService,
    private readonly timelines: TimelineService,
  ) {}

  @Post('track')
  @IdempotentReplays()
  @SuccessStatus(200)
  @BodyLimit(MAX_TRACK_BODY_BYTES)
  @RequirePermission('customers.manage')
  @ResponseMessage('Events processed.')
  @ApiOperation({
    summary: 'Track up to 1,000 customer events',
    description:
      'Each item is checked on its own: a bad item fails alone, with `errors` naming its fields; the good ones are ' +
      'stored in one transaction. A `message_id` is stored once per tenant, ever (while its event is kept): a later ' +
      "item with it, in this request or another, also racing, is a `duplicate` answered with the stored event's id. " +
      "An `external_id` the tenant does not know makes a customer, as `POST /api/customers/batch` would (the plan's " +
      'customer cap applies, a suppressed id is refused; `customer.created` in the change feed); tracked events ' +
      "themselves are not change-feed events. Beyond the plan's `tracked_events_per_day`, items fail with `limit`. " +
      'The body may be up to 5 MiB.',
  })
  @ApiExtraModels(TrackEventItem, TrackResult, TrackCounts)
  @ApiResponse({
    status: 200,
    description: 'One result per item, in order, and the counts',
    schema: {
      type: 'object',
      required: ['code', 'message', 'data', 'meta'],
      properties: {
        code: { type: 'integer', example: 200 },
        message: { type: 'string' },
        data: { type: 'array', items: { $ref: getSchemaPath(TrackResult) } },
        meta: { $ref: getSchemaPath(TrackCounts) },
      },
    },
  })
  trackCustomerEvents(@Auth() auth: AuthContext, @Body() dto: TrackDto): Promise<Page<TrackResult, TrackCounts>> {
    return this.tracking.track(auth, dto);
  }

  @Get('customers/:id/events')
  @RequirePermission('customers.view')
  @ApiIdParam('id', 'The customer')
  @ApiList(CustomerEventResponse, "List a customer's tracked events, newest first")
  listCustomerEvents(
    @Auth() auth: AuthContext,
    @IdParam('id') id: number,
    @Query() query: CustomerEventsQueryDto,
  ): Promise<Page<CustomerEventResponse>> {
    return this.events.list(auth, id, query);
  }

  @Get('customer-events/:id')
  @RequirePermission('customers.view')
  @ApiIdParam('id')
  @ApiRead(CustomerEventResponse, 'Read a tracked event')
  getCustomerEvent(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<CustomerEventResponse> {
    return this.events.get(auth, id);
  }

  @Get('event-names')
  @RequirePermission('customers.view')
  @ApiList(EventNameResponse, "List the tenant's event names, with their counts and newest timestamps")
  listEventNames(@Auth() auth: AuthContext, @Query() query: EventNamesQueryDto): Promise<Page<EventNameResponse>> {
    return this.events.names(auth, query);
  }

  @Get('customers/:id/timeline')
  @RequirePermission('customers.view')
  @ApiIdParam('id', 'The customer')
  @ApiList(
    TimelineItemResponse,
    "A customer's timeline: record changes, tracked events and conversions on campaign goals, newest first",
  )
  getCustomerTimeline(
    @Auth() auth: AuthContext,
    @IdParam('id') id: number,
    @Query() query: TimelineQueryDto,
  ): Promise<Page<TimelineItemResponse>> {
    return this.timelines.timeline(auth, id, query);
  }
}
