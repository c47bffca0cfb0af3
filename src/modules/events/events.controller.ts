import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { RequirePermission } from '../../common/auth/require-permission.decorator.js';
import type { FeedEvent } from '../../common/events/change-feed.js';
import type { Page } from '../../common/http/page.js';
import { ApiEnvelope } from '../../common/openapi/api-envelope.decorator.js';
import { ErrorBodyDto } from '../../common/openapi/common-responses.js';
import { EventResponse, EventsPageMetaDto, EventsQueryDto, EventTypeResponse } from './dto/event.dto.js';
import { EventsService } from './events.service.js';

@ApiTags('Events')
@Controller('events')
export class EventsController {
  constructor(private readonly events: EventsService) {}

  @Get()
  @RequirePermission('events.view')
  @ApiOperation({
    summary: "The tenant's change feed, oldest first",
    description:
      'Every create, update and delete of every record, in commit order: a reader following `meta.next_cursor` ' +
      "sees each event once, and each record's events in the order of its writes. `meta.next_cursor` is always " +
      'set (also on the last page and on an empty one): keep polling from it. A filtered page reads a window of ' +
      'the feed and may hold fewer events than `limit` while `has_more` is true.',
  })
  @ApiEnvelope(EventResponse, { list: 'page', meta: EventsPageMetaDto })
  @ApiResponse({
    status: 410,
    description:
      'The cursor (or `since`) is older than the feed keeps: read the records again, then follow the feed from now',
    type: ErrorBodyDto,
  })
  listEvents(@Auth() auth: AuthContext, @Query() query: EventsQueryDto): Promise<Page<FeedEvent>> {
    return this.events.list(auth, query);
  }

  @Get('types')
  @RequirePermission('events.view')
  @ApiOperation({ summary: 'Every event type the feed and the webhooks publish' })
  @ApiEnvelope(EventTypeResponse, { list: 'array' })
  listEventTypes(): EventTypeResponse[] {
    return this.events.types();
  }

  @Get(':id')
  @RequirePermission('events.view')
  @ApiParam({ name: 'id', type: 'string', example: 'evt_1042', description: "The event's id" })
  @ApiOperation({ summary: 'One event of the feed' })
  @ApiEnvelope(EventResponse)
  getEvent(@Auth() auth: AuthContext, @Param('id') id: string): Promise<FeedEvent> {
    return this.events.get(auth, id);
  }
}
