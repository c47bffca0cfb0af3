import { Injectable } from '@nestjs/common';
import { decimal, optional } from '../../common/resources/dto-values.js';
import { ResourceService } from '../../common/resources/resource.service.js';
import { Tables } from '../../common/persistence/tables.js';
import { ValidationRule } from '../validation/entities/validation-rule.entity.js';
import type { CustomerGoalDto } from './dto/campaign-children.dto.js';
import { toCustomerGoalResponse, type CustomerGoalResponse } from './dto/marketing.responses.js';
import { CustomerGoal } from './entities/campaign-children.entity.js';
import { Campaign } from './entities/campaign.entity.js';
import { childColumns, NAMED_SORTS } from './plan-columns.js';

@Injectable()
export class CustomerGoalsService extends ResourceService<CustomerGoal, CustomerGoalDto, CustomerGoalResponse> {
  constructor(tables: Tables) {
    super(tables, {
      entity: CustomerGoal,
      resource: 'customer_goal',
      label: 'customer goal',
      parent: { entity: Campaign, column: 'campaign_id', label: 'campaign' },
      sorts: NAMED_SORTS,
      filters: { q: ['name'] },
      toColumns: (dto, existing) => ({
        ...childColumns(dto, existing),
        goal_type: dto.goal_type,
        target_value: decimal(dto.target_value),
        validation_rule_id: optional(dto.validation_rule_id, existing?.validation_rule_id, null),
      }),
      toResponse: toCustomerGoalResponse,
      validate: async (dto, { tx }) => {
        if (dto.validation_rule_id) await tx.reference(ValidationRule, dto.validation_rule_id, 'validation_rule_id');
      },
    });
  }
}
