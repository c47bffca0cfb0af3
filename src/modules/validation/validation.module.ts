import { Module } from '@nestjs/common';
import { ValidationRulesController } from './validation-rules.controller.js';
import { ValidationRulesService } from './validation-rules.service.js';

@Module({
  controllers: [ValidationRulesController],
  providers: [ValidationRulesService],
  exports: [ValidationRulesService],
})
export class ValidationModule {}
