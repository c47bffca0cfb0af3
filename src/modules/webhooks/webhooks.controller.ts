import { Body, Controller, Delete, Get, Post, Put, Query } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { RequirePermission } from '../../common/auth/require-permission.decorator.js';
import { ConditionalRequests, IdempotentReplays, SuccessStatus } from '../../common/http/route-behaviour.js';
import type { Page } from '../../common/http/page.js';
import { ApiEnvelope } from '../../common/openapi/api-envelope.decorator.js';
import { ErrorBodyDto } from '../../common/openapi/common-responses.js';
import { ApiDelete, ApiList, ApiRead, ApiUpdate } from '../../common/openapi/route-docs.js';
import { ApiIdParam, IdParam } from '../../common/resources/id-param.js';
import { ListQueryDto } from '../../common/resources/list-query.dto.js';
import { DeliveriesQueryDto, ReplayDto, WebhookDto } from './dto/webhook.dto.js';
import {
  ReplayResponse,
  WebhookDeliveryDetailResponse,
  WebhookDeliveryResponse,
  WebhookResponse,
  WebhookTestResponse,
  WebhookWithSecretResponse,
} from './dto/webhook.response.js';
import { WebhooksService } from './webhooks.service.js';

const notActive = ApiResponse({ status: 409, description: 'The webhook is not active', type: ErrorBodyDto });

@ApiTags('Webhooks')
@Controller('webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Get()
  @RequirePermission('webhooks.view')
  @ApiList(WebhookResponse, "List the tenant's webhooks")
  listWebhooks(@Auth() auth: AuthContext, @Query() query: ListQueryDto): Promise<Page<WebhookResponse>> {
    return this.webhooks.list(auth, query);
  }

  @Post()
  @IdempotentReplays()
  @SuccessStatus(201)
  @RequirePermission('webhooks.manage')
  @ApiOperation({ summary: 'Create a webhook: its answer, and only it, shows the signing secret' })
  @ApiEnvelope(WebhookWithSecretResponse, { status: 201 })
  createWebhook(@Auth() auth: AuthContext, @Body() dto: WebhookDto): Promise<WebhookResponse> {
    return this.webhooks.create(auth, dto);
  }

  @Get(':id')
  @RequirePermission('webhooks.view')
  @ApiIdParam('id')
  @ApiRead(WebhookResponse, 'Read a webhook')
  @ConditionalRequests()
  getWebhook(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<WebhookResponse> {
    return this.webhooks.get(auth, id);
  }

  @Put(':id')
  @RequirePermission('webhooks.manage')
  @ApiIdParam('id')
  @ApiUpdate(WebhookResponse, 'Update a webhook (is_active true re-enables it, from new events on)')
  @ConditionalRequests()
  updateWebhook(
    @Auth() auth: AuthContext,
    @IdParam('id') id: number,
    @Body() dto: WebhookDto,
  ): Promise<WebhookResponse> {
    return this.webhooks.update(auth, id, dto);
  }

  @Delete(':id')
  @RequirePermission('webhooks.manage')
  @ApiIdParam('id')
  @ApiDelete('Delete a webhook')
  @ConditionalRequests()
  deleteWebhook(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<null> {
    return this.webhooks.delete(auth, id);
  }

  @Post(':id/rotate-secret')
  @IdempotentReplays()
  @SuccessStatus(200)
  @RequirePermission('webhooks.manage')
  @ApiIdParam('id')
  @ApiOperation({ summary: 'A new signing secret; the old one keeps signing beside it for 24 hours' })
  @ApiEnvelope(WebhookWithSecretResponse)
  rotateWebhookSecret(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<WebhookWithSecretResponse> {
    return this.webhooks.rotateSecret(auth, id);
  }

  @Post(':id/test')
  @IdempotentReplays()
  @SuccessStatus(202)
  @RequirePermission('webhooks.manage')
  @ApiIdParam('id')
  @ApiOperation({ summary: 'Send a webhook.test event to this webhook' })
  @ApiEnvelope(WebhookTestResponse, { status: 202 })
  @notActive
  testWebhook(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<WebhookTestResponse> {
    return this.webhooks.sendTest(auth, id);
  }

  @Post(':id/replay')
  @IdempotentReplays()
  @SuccessStatus(202)
  @RequirePermission('webhooks.manage')
  @ApiIdParam('id')
  @ApiOperation({ summary: "Send again every event of a span (of some types, or the webhook's)" })
  @ApiEnvelope(ReplayResponse, { status: 202 })
  @notActive
  replayWebhook(@Auth() auth: AuthContext, @IdParam('id') id: number, @Body() dto: ReplayDto): Promise<ReplayResponse> {
    return this.webhooks.replay(auth, id, dto);
  }

  @Get(':id/deliveries')
  @RequirePermission('webhooks.view')
  @ApiIdParam('id')
  @ApiList(WebhookDeliveryResponse, "The webhook's deliveries, newest first (kept 30 days)")
  listWebhookDeliveries(
    @Auth() auth: AuthContext,
    @IdParam('id') id: number,
    @Query() query: DeliveriesQueryDto,
  ): Promise<Page<WebhookDeliveryResponse>> {
    return this.webhooks.deliveries(auth, id, query);
  }

  @Get(':id/deliveries/:delivery_id')
  @RequirePermission('webhooks.view')
  @ApiIdParam('id')
  @ApiIdParam('delivery_id')
  @ApiOperation({ summary: 'One delivery with every attempt' })
  @ApiEnvelope(WebhookDeliveryDetailResponse)
  getWebhookDelivery(
    @Auth() auth: AuthContext,
    @IdParam('id') id: number,
    @IdParam('delivery_id') deliveryId: number,
  ): Promise<WebhookDeliveryDetailResponse> {
    return this.webhooks.delivery(auth, id, deliveryId);
  }

  @Post(':id/deliveries/:delivery_id/retry')
  @IdempotentReplays()
  @SuccessStatus(202)
  @RequirePermission('webhooks.manage')
  @ApiIdParam('id')
  @ApiIdParam('delivery_id')
  @ApiOperation({ summary: 'Send a delivery again now' })
  @ApiEnvelope(WebhookDeliveryResponse, { status: 202 })
  @notActive
  retryWebhookDelivery(
    @Auth() auth: AuthContext,
    @IdParam('id') id: number,
    @IdParam('delivery_id') deliveryId: number,
  ): Promise<WebhookDeliveryResponse> {
    return this.webhooks.retry(auth, id, deliveryId);
  }
}
