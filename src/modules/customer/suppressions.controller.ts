import { Controller, Delete, Get, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { RequirePermission } from '../../common/auth/require-permission.decorator.js';
import type { Page } from '../../common/http/page.js';
import { ApiDelete, ApiList } from '../../common/openapi/route-docs.js';
import { ApiIdParam, IdParam } from '../../common/resources/id-param.js';
import { ListQueryDto } from '../../common/resources/list-query.dto.js';
import { CustomerSuppressionResponse } from './dto/customer-suppression.response.js';
import { SuppressionsService } from './suppression/suppressions.service.js';

@ApiTags('Customers')
@Controller()
export class SuppressionsController {
  constructor(private readonly suppressions: SuppressionsService) {}

  @Get('suppressions')
  @RequirePermission('customers.view')
  @ApiList(
    CustomerSuppressionResponse,
    "List the suppression list: erased customers' e-mail addresses and external ids, by kind (never the value)",
  )
  listSuppressions(
    @Auth() auth: AuthContext,
    @Query() query: ListQueryDto,
  ): Promise<Page<CustomerSuppressionResponse>> {
    return this.suppressions.list(auth, query);
  }

  @Delete('suppressions/:id')
  @RequirePermission('customers.manage')
  @ApiIdParam('id')
  @ApiDelete('Lift a suppression (the person came back and consented): the value may be written again')
  liftSuppression(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<null> {
    return this.suppressions.lift(auth, id);
  }
}
