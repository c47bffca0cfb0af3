import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { RequirePermission } from '../../common/auth/require-permission.decorator.js';
import type { Page } from '../../common/http/page.js';
import { ApiEnvelope } from '../../common/openapi/api-envelope.decorator.js';
import { ActivityLogService } from './activity-log.service.js';
import { ActivityLogQueryDto, ActivityLogResponse } from './dto/activity-log.dto.js';

@ApiTags('Admin: activity log')
@Controller('admin/activity-log')
export class ActivityLogController {
  constructor(private readonly activity: ActivityLogService) {}

  @Get()
  @RequirePermission('activity-log.view')
  @ApiOperation({ summary: 'Every create, update and delete, newest first; filter by subject, causer or event' })
  @ApiEnvelope(ActivityLogResponse, { list: 'page' })
  listActivity(@Auth() auth: AuthContext, @Query() query: ActivityLogQueryDto): Promise<Page<ActivityLogResponse>> {
    return this.activity.list(auth, query);
  }
}
