import { Injectable } from '@nestjs/common';
import { AssociationService } from '../../common/resources/association.service.js';
import { Tables } from '../../common/persistence/tables.js';
import type { ValidationRuleResponse } from '../validation/dto/validation-rule.response.js';
import type { ValidationRule } from '../validation/entities/validation-rule.entity.js';
import { ValidationRulesService } from '../validation/validation-rules.service.js';
import type { CampaignValidationRuleDto, CampaignValidationRuleResponse } from './dto/campaign-validation-rule.dto.js';
import { CampaignValidationRule } from './entities/campaign-validation-rule.entity.js';
import { Campaign } from './entities/campaign.entity.js';

/** Rules attached to a campaign; a soft-deleted rule's links vanish from every read. */
@Injectable()
export class CampaignValidationRulesService extends AssociationService<
  CampaignValidationRule,
  ValidationRule,
  CampaignValidationRuleDto,
  CampaignValidationRuleResponse,
  ValidationRuleResponse
> {
  constructor(tables: Tables, rules: ValidationRulesService) {
    super(tables, {
      entity: CampaignValidationRule,
      resource: 'campaign_validation_rule',
      owner: { entity: Campaign, column: 'campaign_id', label: 'campaign' },
      target: { column: 'validation_rule_id', label: 'validation rule', resource: rules },
      item: 'target',
      unique: true,
      targetId: (dto) => dto.validation_rule_id,
      toColumns: (dto) => ({ rule_override: dto.rule_override ?? null }),
      present: (link, rule) => ({ ...rule, rule_override: link.rule_override }),
    });
  }
}
