import { Module } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import { createResourceController } from '../../common/resources/resource.controller.js';
import { resourceService, resourceServiceToken } from '../../common/resources/resource.providers.js';
import {
  ValidationRuleDto,
  ValidationRuleListQueryDto,
  ValidationRuleReadFailure,
  ValidationRuleResponse,
} from './dto/validation-rule.dto.js';
import { ValidationRulesDefinition, ValidationRulesService } from './validation-rules.js';

export const ValidationRulesController = createResourceController({
  service: resourceServiceToken(ValidationRulesDefinition),
  tag: 'Validation rules',
  names: ['validation rule', 'validation rules'],
  operations: {
    list: 'listValidationRules',
    create: 'createValidationRule',
    get: 'getValidationRule',
    update: 'updateValidationRule',
    delete: 'deleteValidationRule',
  },
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

@Module({
  controllers: [ValidationRulesController],
  providers: [...resourceService(ValidationRulesDefinition, ValidationRulesService)],
})
export class ValidationModule {}
