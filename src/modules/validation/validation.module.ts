import { Module, type OnModuleInit } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { associationService, createAssociationController } from '../../common/resources/association.js';
import { createResourceController } from '../../common/resources/resource.controller.js';
import { resourceService } from '../../common/resources/resource.providers.js';
import { CampaignCascade } from '../marketing/campaign-cascade.js';
import { MarketingModule } from '../marketing/marketing.module.js';
import { CampaignValidationRule } from './entities/campaign-validation-rule.entity.js';
import {
  CampaignValidationRuleDto,
  CampaignValidationRuleResponse,
  ValidationRuleDto,
  ValidationRuleListQueryDto,
  ValidationRuleReadFailure,
  ValidationRuleResponse,
} from './dto/validation-rule.dto.js';
import {
  CampaignValidationRulesDefinition,
  ValidationRulesDefinition,
  ValidationRulesService,
} from './validation-rules.js';

export const ValidationRulesController = createResourceController({
  definition: ValidationRulesDefinition,
  tag: 'Validation rules',
  names: ['validation rule', 'validation rules'],
  permissions: { view: 'validation-rules.view', manage: 'validation-rules.manage' },
  routes: { collection: 'validation-rules', item: 'validation-rules/:id', itemParam: 'id' },
  response: ValidationRuleResponse,
  createDto: ValidationRuleDto,
  updateDto: ValidationRuleDto,
  listQuery: ValidationRuleListQueryDto,
  extraDocs: {
    get: [ApiResponse({ status: 500, description: 'Reading the rule failed', type: ValidationRuleReadFailure })],
  },
});

export const CampaignValidationRulesController = createAssociationController({
  definition: CampaignValidationRulesDefinition,
  tag: 'Validation rules',
  names: ['validation rule', 'validation rules'],
  permissions: { view: 'validation-rules.view', manage: 'validation-rules.manage' },
  collection: 'campaigns/:campaign_id/validation-rules',
  ownerParam: 'campaign_id',
  remove: {
    path: 'campaigns/:campaign_id/validation-rules/:validation_rule_id',
    param: 'validation_rule_id',
    by: 'target',
  },
  response: CampaignValidationRuleResponse,
  createDto: CampaignValidationRuleDto,
});

@Module({
  imports: [MarketingModule],
  controllers: [ValidationRulesController, CampaignValidationRulesController],
  providers: [
    ...resourceService(ValidationRulesDefinition, ValidationRulesService),
    ...associationService(CampaignValidationRulesDefinition),
  ],
})
export class ValidationModule implements OnModuleInit {
  constructor(private readonly cascade: CampaignCascade) {}

  onModuleInit(): void {
    this.cascade.register(CampaignValidationRule);
  }
}
