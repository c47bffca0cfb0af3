import { Inject, Injectable, Optional } from '@nestjs/common';
import { ValidationFailed, type FieldErrors } from '../../common/http/api-exception.js';
import { decimal, optional } from '../../common/resources/dto-values.js';
import { ResourceService } from '../../common/resources/resource.service.js';
import { Tables } from '../../common/persistence/tables.js';
import { DeletionEffects } from '../../common/resources/deletion-effects.js';
import { ValidationRule } from '../validation/entities/validation-rule.entity.js';
import { DEFAULT_WINDOW_DAYS, VALUE_PROPERTY_PATTERN, type CustomerGoalDto } from './dto/campaign-children.dto.js';
import { toCustomerGoalResponse, type CustomerGoalResponse } from './dto/marketing.responses.js';
import { CustomerGoal } from './entities/campaign-children.entity.js';
import { Campaign } from './entities/campaign.entity.js';
import { GOAL_MEASURES, type GoalMeasures } from './goal-measures.js';
import { childColumns, NAMED_SORTS } from './plan-columns.js';

@Injectable()
export class CustomerGoalsService extends ResourceService<CustomerGoal, CustomerGoalDto, CustomerGoalResponse> {
  constructor(
    tables: Tables,
    effects: DeletionEffects,
    @Optional() @Inject(GOAL_MEASURES) measures: GoalMeasures | null = null,
  ) {
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
        event: optional(dto.event, existing?.event, null),
        conditions: optional(
          dto.where === undefined || dto.where === null ? dto.where : JSON.stringify(dto.where),
          existing?.conditions,
          null,
        ),
        window_days: optional(dto.window_days, existing?.window_days, DEFAULT_WINDOW_DAYS),
        value_property: optional(dto.value_property, existing?.value_property, null),
      }),
      toResponse: toCustomerGoalResponse,
      // The KPIs measured on it are measured on nothing (src/app.module.ts).
      beforeDelete: (goal, tx) => effects.apply(CustomerGoal, goal, tx),
      validate: async (dto, { tx, existing }) => {
        const errors: FieldErrors = {};
        const event = optional(dto.event, existing?.event, null);
        if (dto.where !== undefined && dto.where !== null && dto.where.length > 0 && event === null)
          errors.where = ['The where field needs an event: it filters the events of the goal.'];
        else if (measures) Object.assign(errors, measures.check({ event: dto.event, where: dto.where }));
        if (typeof dto.value_property === 'string' && !VALUE_PROPERTY_PATTERN.test(dto.value_property))
          errors.value_property = [
            'The value property field must be a property path: keys of letters, digits, _ and -, joined by dots.',
          ];
        if (Object.keys(errors).length) throw new ValidationFailed(errors);
        if (dto.validation_rule_id) await tx.reference(ValidationRule, dto.validation_rule_id, 'validation_rule_id');
      },
    });
  }
}
