import type { Readable } from 'node:stream';
import { Body, Controller, Delete, Get, Param, Post, Put, Query, Res } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiOperation,
  ApiParam,
  ApiProduces,
  ApiResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { RequirePermission } from '../../common/auth/require-permission.decorator.js';
import type { Page } from '../../common/http/page.js';
import {
  ConditionalRequests,
  IdempotentReplays,
  ResponseMessage,
  SuccessStatus,
} from '../../common/http/route-behaviour.js';
import { ErrorBodyDto } from '../../common/openapi/common-responses.js';
import { ApiDelete, ApiList, ApiRead, ApiUpdate } from '../../common/openapi/route-docs.js';
import { ApiIdParam, IdParam } from '../../common/resources/id-param.js';
import { ListQueryDto } from '../../common/resources/list-query.dto.js';
import { CampaignRunsService } from './campaign-runs.service.js';
import { CampaignSchedules } from './campaign-schedules.js';
import { RecipientsQueryDto, RunLaunchDto } from './dto/run.dto.js';
import { RecipientResponse, RunFileResponse, RunResponse } from './dto/run.response.js';
import { RunFiles } from './run-files.js';
import { MessagingLimitsDto, MessagingLimitsResponse, ScheduleDto, ScheduleResponse } from './dto/schedule.dto.js';
import { MessagingLimitsService } from './messaging-limits.service.js';

const NDJSON = 'application/x-ndjson';

const conflict = (description: string) => ApiResponse({ status: 409, description, type: ErrorBodyDto });

@ApiTags('Campaign runs')
@Controller()
export class CampaignRunsController {
  constructor(
    private readonly runs: CampaignRunsService,
    private readonly schedules: CampaignSchedules,
    private readonly limits: MessagingLimitsService,
    private readonly files: RunFiles,
  ) {}

  @Post('campaigns/:id/runs')
  @IdempotentReplays()
  @SuccessStatus(202)
  @RequirePermission('campaigns.launch')
  @ResponseMessage('Run queued.')
  @ApiIdParam('id')
  @ApiOperation({
    summary: 'Launch a campaign: its run records its members and delivers each group to its destinations',
    description:
      'Refused with one 422 listing every reason at once: `errors.status` (the campaign is not active), ' +
      '`errors.dates` (today is outside its dates), `errors.validation_rules` (an attached active rule cannot be ' +
      'evaluated), `errors.destinations` (an active association that is not deliverable, or none). ' +
      '`{"dry_run": true}` computes everything (the counts included) and delivers nothing. Follow the run at the ' +
      '`location` answered.',
  })
  @ApiExtraModels(RunResponse)
  @ApiResponse({
    status: 202,
    description: 'Accepted: the run is queued',
    headers: { location: { description: 'The run: `/api/campaign-runs/{id}`', schema: { type: 'string' } } },
    schema: {
      type: 'object',
      required: ['code', 'message', 'data'],
      properties: {
        code: { type: 'integer', example: 202 },
        message: { type: 'string' },
        data: { $ref: getSchemaPath(RunResponse) },
      },
    },
  })
  @ApiResponse({
    status: 409,
    description: 'A run of this campaign is queued, running or paused: `{message, run_id}`',
    schema: {
      type: 'object',
      required: ['message', 'run_id'],
      properties: { message: { type: 'string' }, run_id: { type: 'integer', nullable: true } },
    },
  })
  async launchCampaignRun(
    @Auth() auth: AuthContext,
    @IdParam('id') id: number,
    @Body() dto: RunLaunchDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<RunResponse> {
    const run = await this.runs.launch(auth, id, { dryRun: dto.dry_run ?? false, trigger: 'manual' });
    reply.header('location', `/api/campaign-runs/${run.id}`);
    return run;
  }

  @Get('campaigns/:id/runs')
  @RequirePermission('marketing.view')
  @ApiIdParam('id')
  @ApiList(RunResponse, "List a campaign's runs (newest first)")
  listCampaignRuns(
    @Auth() auth: AuthContext,
    @IdParam('id') id: number,
    @Query() query: ListQueryDto,
  ): Promise<Page<RunResponse>> {
    return this.runs.list(auth, id, query);
  }

  @Get('campaign-runs/:id')
  @RequirePermission('marketing.view')
  @ApiIdParam('id')
  @ApiRead(RunResponse, 'Read a run: its status and counts, updated as it goes')
  @ConditionalRequests()
  getCampaignRun(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<RunResponse> {
    return this.runs.get(auth, id);
  }

  @Post('campaign-runs/:id/pause')
  @IdempotentReplays()
  @SuccessStatus(200)
  @RequirePermission('campaigns.launch')
  @ApiIdParam('id')
  @ApiRead(RunResponse, 'Pause a run: it stops after the batches in flight')
  @conflict('The run has ended')
  pauseCampaignRun(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<RunResponse> {
    return this.runs.pause(auth, id);
  }

  @Post('campaign-runs/:id/resume')
  @IdempotentReplays()
  @SuccessStatus(200)
  @RequirePermission('campaigns.launch')
  @ApiIdParam('id')
  @ApiRead(RunResponse, 'Resume a paused run from where it stopped')
  @conflict('The run is not paused')
  resumeCampaignRun(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<RunResponse> {
    return this.runs.resume(auth, id);
  }

  @Post('campaign-runs/:id/cancel')
  @IdempotentReplays()
  @SuccessStatus(200)
  @RequirePermission('campaigns.launch')
  @ApiIdParam('id')
  @ApiRead(RunResponse, 'Cancel a run: the batches in flight finish and are recorded, the rest is skipped')
  @conflict('The run has ended')
  cancelCampaignRun(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<RunResponse> {
    return this.runs.cancel(auth, id);
  }

  @Post('campaign-runs/:id/retry')
  @IdempotentReplays()
  @SuccessStatus(200)
  @RequirePermission('campaigns.launch')
  @ApiIdParam('id')
  @ApiRead(RunResponse, "Queue a completed or failed run's failed recipients again")
  @conflict('The run is not completed or failed, is a dry run, or another run of the campaign is going on')
  retryCampaignRun(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<RunResponse> {
    return this.runs.retry(auth, id);
  }

  @Get('campaign-runs/:id/recipients')
  @RequirePermission('marketing.view')
  @ApiIdParam('id')
  @ApiList(RecipientResponse, "List a run's recipients: one per member and association that sends it something")
  listCampaignRunRecipients(
    @Auth() auth: AuthContext,
    @IdParam('id') id: number,
    @Query() query: RecipientsQueryDto,
  ): Promise<Page<RecipientResponse>> {
    return this.runs.recipients(auth, id, query);
  }

  @Get('campaign-runs/:id/files')
  @RequirePermission('marketing.view')
  @ApiIdParam('id')
  @ApiList(
    RunFileResponse,
    "List the files a run's `file` destinations wrote (one per association, complete once listed)",
  )
  listCampaignRunFiles(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<Page<RunFileResponse>> {
    return this.files.list(auth, id);
  }

  @Get('campaign-runs/:id/files/:name')
  @RequirePermission('marketing.view')
  @ApiIdParam('id')
  @ApiParam({ name: 'name', description: 'A file name as the list gives it', example: 'campaign-destination-3.csv' })
  @ApiOperation({ summary: "Download a file of a run's `file` destination (CSV or NDJSON, no envelope)" })
  @ApiProduces('text/csv', NDJSON)
  @ApiResponse({
    status: 200,
    description: 'The file, streamed',
    headers: {
      'content-disposition': { description: 'attachment; filename="<name>"', schema: { type: 'string' } },
    },
    content: {
      'text/csv': { schema: { type: 'string' } },
      [NDJSON]: { schema: { type: 'string', description: 'One record per line, as a webhook body holds it' } },
    },
  })
  @ApiResponse({
    status: 404,
    description: 'No such run, or no such file of it',
    content: { 'application/json': { schema: { $ref: getSchemaPath(ErrorBodyDto) } } },
  })
  async downloadCampaignRunFile(
    @Auth() auth: AuthContext,
    @IdParam('id') id: number,
    @Param('name') name: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Readable> {
    const { file, stream } = await this.files.open(auth, id, name);
    reply.header('content-type', file.format === 'csv' ? 'text/csv; charset=utf-8' : `${NDJSON}; charset=utf-8`);
    reply.header('content-disposition', `attachment; filename="${file.name}"`);
    return stream;
  }

  @Put('campaigns/:id/schedule')
  @RequirePermission('campaigns.launch')
  @ApiIdParam('id')
  @ApiUpdate(ScheduleResponse, "Set a campaign's schedule: once (`at`) or by a cron expression in a time zone")
  putCampaignSchedule(
    @Auth() auth: AuthContext,
    @IdParam('id') id: number,
    @Body() dto: ScheduleDto,
  ): Promise<ScheduleResponse> {
    return this.schedules.put(auth, id, dto);
  }

  @Get('campaigns/:id/schedule')
  @RequirePermission('marketing.view')
  @ApiIdParam('id')
  @ApiRead(ScheduleResponse, "Read a campaign's schedule (404 without one)")
  getCampaignSchedule(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<ScheduleResponse> {
    return this.schedules.get(auth, id);
  }

  @Delete('campaigns/:id/schedule')
  @RequirePermission('campaigns.launch')
  @ApiIdParam('id')
  @ApiDelete("Remove a campaign's schedule")
  deleteCampaignSchedule(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<null> {
    return this.schedules.delete(auth, id);
  }

  @Get('messaging-limits')
  @RequirePermission('marketing.view')
  @ApiRead(MessagingLimitsResponse, "Read the tenant's frequency caps")
  getMessagingLimits(@Auth() auth: AuthContext): Promise<MessagingLimitsResponse> {
    return this.limits.get(auth);
  }

  @Put('messaging-limits')
  @RequirePermission('marketing.manage')
  @ApiUpdate(MessagingLimitsResponse, "Set the tenant's frequency caps (at most 10 rules, one per channel)")
  putMessagingLimits(@Auth() auth: AuthContext, @Body() dto: MessagingLimitsDto): Promise<MessagingLimitsResponse> {
    return this.limits.put(auth, dto);
  }
}
