import { Controller, Delete, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import type { Page } from '../../common/http/page.js';
import { ApiEnvelope } from '../../common/openapi/api-envelope.decorator.js';
import { ApiIdParam, IdParam } from '../../common/resources/id-param.js';
import { ListQueryDto } from '../../common/resources/list-query.dto.js';
import { TokenResponse } from './dto/token.response.js';
import { UserTokensService } from './user-tokens.service.js';
import { ResponseMessage } from '../../common/http/route-behaviour.js';

@ApiTags('Session')
@Controller('user/tokens')
export class UserTokensController {
  constructor(private readonly tokens: UserTokensService) {}

  @Get()
  @ApiOperation({
    summary: "List the caller's own tokens (one per signed-in device)",
    description: 'Sorts: `id`, `name`, `created_at`. `current` marks the token of this request.',
  })
  @ApiEnvelope(TokenResponse, { list: 'page' })
  listUserTokens(@Auth() auth: AuthContext, @Query() query: ListQueryDto): Promise<Page<TokenResponse>> {
    return this.tokens.list(auth, query);
  }

  @Delete(':id')
  @ApiIdParam('id', "Token id (one of the caller's own; any other id is a 404)")
  @ApiOperation({ summary: "Revoke one of the caller's own tokens at once (signs that device out)" })
  @ResponseMessage('Token revoked.')
  @ApiEnvelope(null)
  revokeUserToken(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<null> {
    return this.tokens.revoke(auth, id);
  }
}
