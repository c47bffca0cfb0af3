import { Controller, Get, Query } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { RequirePermission } from '../../common/auth/require-permission.decorator.js';
import { Tables } from '../../common/persistence/tables.js';
import { ApiRead } from '../../common/openapi/route-docs.js';
import { ApiIdParam, IdParam } from '../../common/resources/id-param.js';
import { campaignResults } from './campaign-results.js';
import { CampaignResultsResponse, ResultsQueryDto } from './dto/results.dto.js';

@ApiTags('Campaign results')
@Controller()
export class ResultsController {
  constructor(private readonly tables: Tables) {}

  @Get('campaigns/:id/results')
  @RequirePermission('marketing.view')
  @ApiIdParam('id')
  @ApiRead(
    CampaignResultsResponse,
    "A campaign's results: conversions per treatment group and goal against the control, sample-ratio check, measured KPIs",
  )
  getCampaignResults(
    @Auth() auth: AuthContext,
    @IdParam('id') id: number,
    @Query() query: ResultsQueryDto,
  ): Promise<CampaignResultsResponse> {
    return campaignResults(this.tables.read(auth), id, query);
  }
}
