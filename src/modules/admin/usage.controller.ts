import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { NotCounted } from '../../common/http/route-behaviour.js';
import { ApiEnvelope } from '../../common/openapi/api-envelope.decorator.js';
import { UsageResponse } from './dto/usage.response.js';
import { UsageService } from './usage.service.js';

@ApiTags('Usage')
@Controller()
export class UsageController {
  constructor(private readonly usage: UsageService) {}

  @Get('usage')
  @NotCounted()
  @ApiOperation({
    summary: "The tenant's plan and what it uses: today's API calls and its record counts",
    description:
      'Every signed-in user, for their own tenant (a super-admin: another with `X-Tenant-ID`). This call is not ' +
      'counted against the daily quota. A limit of null is unlimited.',
  })
  @ApiEnvelope(UsageResponse)
  getUsage(@Auth() auth: AuthContext): Promise<UsageResponse> {
    return this.usage.usage(auth);
  }
}
