import { Inject, Injectable } from '@nestjs/common';
import { scrubSecret } from '../../common/database/database-errors.js';
import { ApiException } from '../../common/http/api-exception.js';
import { optional } from '../../common/resources/dto-values.js';
import type { AssociationDefinition } from '../../common/resources/association.js';
import type { ResourceDefinition } from '../../common/resources/resource-definition.js';
import { resourceServiceToken } from '../../common/resources/resource.providers.js';
import { ResourceService } from '../../common/resources/resource.service.js';
import { Campaign } from '../marketing/entities/campaign.entity.js';
import type {
  CampaignValidationRuleDto,
  CampaignValidationRuleResponse,
  ValidationRuleDto,
  ValidationRuleResponse,
} from './dto/validation-rule.dto.js';
import { CampaignValidationRule } from './entities/campaign-validation-rule.entity.js';
import { ValidationRule } from './entities/validation-rule.entity.js';

@Injectable()
export class ValidationRulesDefinition implements ResourceDefinition<ValidationRule, unknown, ValidationRuleDto> {
  entity = ValidationRule;
  label = 'validation rule';
  sorts = { name: 'string', created_at: 'date' } as const;
  filters = { q: ['name'], exact: ['is_active'] };

  toColumns(dto: ValidationRuleDto, existing?: ValidationRule): Partial<ValidationRule> {
    return {
      name: dto.name,
      description: optional(dto.description, existing?.description, null),
      rule_definition: dto.rule_definition,
      is_active: optional(dto.is_active, existing?.is_active, true),
    };
  }
}

/**
 * Validation rules are soft-deleted (the generic delete sees `deleted_at`). Reading one rule has
 * the one error body INTERFACE.md specifies: a failed read answers 500 with the database's text.
 */
export class ValidationRulesService extends ResourceService<ValidationRule, unknown, ValidationRuleDto> {
  async get(id: number): Promise<unknown> {
    try {
      return await super.get(id);
    } catch (error) {
      if (error instanceof ApiException) throw error;
      const text = error instanceof Error ? error.message : String(error);
      throw new ApiException(500, {
        code: 500,
        message: 'Failed to retrieve validation rule.',
        data: scrubSecret(text, this.config?.database.password),
      });
    }
  }
}

/** Rules attached to a campaign; a soft-deleted rule's links vanish from every read. */
@Injectable()
export class CampaignValidationRulesDefinition implements AssociationDefinition<
  CampaignValidationRule,
  CampaignValidationRuleDto,
  CampaignValidationRuleResponse
> {
  entity = CampaignValidationRule;
  owner = { entity: Campaign, column: 'campaign_id', label: 'campaign' };
  target = { column: 'validation_rule_id', label: 'validation rule' };
  unique = true;

  constructor(
    @Inject(resourceServiceToken(ValidationRulesDefinition))
    readonly targets: ResourceService<ValidationRule, ValidationRuleResponse>,
  ) {}

  targetId = (dto: CampaignValidationRuleDto) => dto.validation_rule_id;
  toColumns = (dto: CampaignValidationRuleDto) => ({ rule_override: dto.rule_override ?? null });

  present = (link: Record<string, unknown>, rule: ValidationRuleResponse): CampaignValidationRuleResponse => ({
    ...rule,
    rule_override: link.rule_override as string | null,
  });
}
