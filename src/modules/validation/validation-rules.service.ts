import { Inject, Injectable } from '@nestjs/common';
import type { AuthContext } from '../../common/auth/auth-context.js';
import { APP_CONFIG, type AppConfig } from '../../common/config/app-config.js';
import { scrubSecret } from '../../common/persistence/database-errors.js';
import { ApiException } from '../../common/http/api-exception.js';
import { optional } from '../../common/resources/dto-values.js';
import { DeletionEffects } from '../../common/resources/deletion-effects.js';
import { ResourceService } from '../../common/resources/resource.service.js';
import { Tables } from '../../common/persistence/tables.js';
import type { ValidationRuleDto } from './dto/validation-rule.dto.js';
import { toValidationRuleResponse, type ValidationRuleResponse } from './dto/validation-rule.response.js';
import { ValidationRule } from './entities/validation-rule.entity.js';

/**
 * Validation rules are soft-deleted (the entity's `deleted_at`). Reading one rule has the one error
 * body INTERFACE.md specifies: a failed read answers 500 with the database's text.
 */
@Injectable()
export class ValidationRulesService extends ResourceService<ValidationRule, ValidationRuleDto, ValidationRuleResponse> {
  constructor(
    tables: Tables,
    effects: DeletionEffects,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super(tables, {
      entity: ValidationRule,
      resource: 'validation_rule',
      label: 'validation rule',
      sorts: { name: 'string', created_at: 'date' },
      filters: { q: ['name'], exact: ['is_active'] },
      toColumns: (dto, existing) => ({
        name: dto.name,
        description: optional(dto.description, existing?.description, null),
        rule_definition: dto.rule_definition,
        is_active: optional(dto.is_active, existing?.is_active, true),
      }),
      toResponse: toValidationRuleResponse,
      // Its campaign links go with it (src/app.module.ts); it stays, soft-deleted.
      beforeDelete: (rule, tx) => effects.apply(ValidationRule, rule, tx),
    });
  }

  async get(auth: AuthContext, id: number): Promise<ValidationRuleResponse> {
    try {
      return await super.get(auth, id);
    } catch (error) {
      if (error instanceof ApiException) throw error;
      const text = error instanceof Error ? error.message : String(error);
      throw new ApiException(500, {
        code: 500,
        message: 'Failed to retrieve validation rule.',
        data: scrubSecret(text, this.config.database.password),
      });
    }
  }
}
