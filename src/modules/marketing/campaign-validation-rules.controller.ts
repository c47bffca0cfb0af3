import { Body, Controller, Delete, Get, Post, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { RequirePermission } from '../../common/auth/require-permission.decorator.js';
import type { Page } from '../../common/http/page.js';
import { ApiCreate, ApiDelete, ApiList } from '../../common/openapi/route-docs.js';
import { ApiIdParam, IdParam } from '../../common/resources/id-param.js';
import { NamedListQueryDto } from '../../common/resources/list-query.dto.js';
import { CampaignValidationRulesService } from './campaign-validation-rules.service.js';
import { CampaignValidationRuleDto, CampaignValidationRuleResponse } from './dto/campaign-validation-rule.dto.js';
import { ConditionalRequests, IdempotentReplays, SuccessStatus } from '../../common/http/route-behaviour.js';

@ApiTags('Validation rules')
@Controller()
export class CampaignValidationRulesController {
  constructor(private readonly links: CampaignValidationRulesService) {}

  @Get('campaigns/:campaign_id/validation-rules')
  @RequirePermission('validation-rules.view')
  @ApiIdParam('campaign_id')
  @ApiList(CampaignValidationRuleResponse, 'List the validation rules of a campaign')
  listCampaignValidationRules(
    @Auth() auth: AuthContext,
    @IdParam('campaign_id') campaignId: number,
    @Query() query: NamedListQueryDto,
  ): Promise<Page<CampaignValidationRuleResponse>> {
    return this.links.list(auth, campaignId, query);
  }

  @Post('campaigns/:campaign_id/validation-rules')
  @RequirePermission('validation-rules.manage')
  @ApiIdParam('campaign_id')
  @ApiCreate(CampaignValidationRuleResponse, 'Associate a validation rule with a campaign')
  @SuccessStatus(201)
  @IdempotentReplays()
  addCampaignValidationRule(
    @Auth() auth: AuthContext,
    @IdParam('campaign_id') campaignId: number,
    @Body() dto: CampaignValidationRuleDto,
  ): Promise<CampaignValidationRuleResponse> {
    return this.links.create(auth, campaignId, dto);
  }

  @Delete('campaigns/:campaign_id/validation-rules/:validation_rule_id')
  @RequirePermission('validation-rules.manage')
  @ApiIdParam('campaign_id')
  @ApiIdParam('validation_rule_id')
  @ApiDelete('Remove a validation rule from a campaign')
  @ConditionalRequests()
  removeCampaignValidationRule(
    @Auth() auth: AuthContext,
    @IdParam('campaign_id') campaignId: number,
    @IdParam('validation_rule_id') ruleId: number,
  ): Promise<null> {
    return this.links.removeByTarget(auth, campaignId, ruleId);
  }
}
