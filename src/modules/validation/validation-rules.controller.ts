import { Body, Controller, Delete, Get, Post, Put, Query } from '@nestjs/common';
import { ApiResponse, ApiTags } from '@nestjs/swagger';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { RequirePermission } from '../../common/auth/require-permission.decorator.js';
import type { Page } from '../../common/http/page.js';
import { ApiCreate, ApiDelete, ApiList, ApiRead, ApiUpdate } from '../../common/openapi/route-docs.js';
import { ApiIdParam, IdParam } from '../../common/resources/id-param.js';
import { ValidationRuleDto, ValidationRuleListQueryDto } from './dto/validation-rule.dto.js';
import { ValidationRuleReadFailure, ValidationRuleResponse } from './dto/validation-rule.response.js';
import { ValidationRulesService } from './validation-rules.service.js';
import { ConditionalRequests, IdempotentReplays, SuccessStatus } from '../../common/http/route-behaviour.js';

@ApiTags('Validation rules')
@Controller()
export class ValidationRulesController {
  constructor(private readonly rules: ValidationRulesService) {}

  @Get('validation-rules')
  @RequirePermission('validation-rules.view')
  @ApiList(ValidationRuleResponse, 'List validation rules')
  listValidationRules(
    @Auth() auth: AuthContext,
    @Query() query: ValidationRuleListQueryDto,
  ): Promise<Page<ValidationRuleResponse>> {
    return this.rules.list(auth, query);
  }

  @Post('validation-rules')
  @RequirePermission('validation-rules.manage')
  @ApiCreate(ValidationRuleResponse, 'Create a validation rule')
  @SuccessStatus(201)
  @IdempotentReplays()
  createValidationRule(@Auth() auth: AuthContext, @Body() dto: ValidationRuleDto): Promise<ValidationRuleResponse> {
    return this.rules.create(auth, dto);
  }

  @Get('validation-rules/:id')
  @RequirePermission('validation-rules.view')
  @ApiIdParam('id')
  @ApiRead(ValidationRuleResponse, 'Read a validation rule')
  @ApiResponse({ status: 500, description: 'Reading the rule failed', type: ValidationRuleReadFailure })
  @ConditionalRequests()
  getValidationRule(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<ValidationRuleResponse> {
    return this.rules.get(auth, id);
  }

  @Put('validation-rules/:id')
  @RequirePermission('validation-rules.manage')
  @ApiIdParam('id')
  @ApiUpdate(ValidationRuleResponse, 'Update a validation rule')
  @ConditionalRequests()
  updateValidationRule(
    @Auth() auth: AuthContext,
    @IdParam('id') id: number,
    @Body() dto: ValidationRuleDto,
  ): Promise<ValidationRuleResponse> {
    return this.rules.update(auth, id, dto);
  }

  @Delete('validation-rules/:id')
  @RequirePermission('validation-rules.manage')
  @ApiIdParam('id')
  @ApiDelete('Delete a validation rule')
  @ConditionalRequests()
  deleteValidationRule(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<null> {
    return this.rules.delete(auth, id);
  }
}
