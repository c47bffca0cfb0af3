import { Controller, Delete, Get, Headers, Param, Post, Req, Res } from '@nestjs/common';
import {
  ApiConsumes,
  ApiOperation,
  ApiParam,
  ApiProperty,
  ApiResponse,
  ApiTags,
  getSchemaPath,
  ApiExtraModels,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Auth, type AuthContext } from '../../../common/auth/auth-context.js';
import { Public } from '../../../common/auth/public.decorator.js';
import { RequirePermission } from '../../../common/auth/require-permission.decorator.js';
import { RecordNotFound } from '../../../common/http/api-exception.js';
import { IgnoredBody } from '../../../common/http/body-parsing.js';
import { CredentialInPath, ResponseMessage, SuccessStatus } from '../../../common/http/route-behaviour.js';
import { ApiDelete } from '../../../common/openapi/route-docs.js';
import { ApiIdParam, IdParam } from '../../../common/resources/id-param.js';
import { CONFIRM_PAGE, DONE_PAGE, PAGE_HEADERS } from './unsubscribe-page.js';
import { UnsubscribeService } from './unsubscribe.service.js';

export class UnsubscribeResponse {
  @ApiProperty({ enum: [true] }) unsubscribed: true;
}

const TOKEN_PARAM = ApiParam({
  name: 'token',
  type: 'string',
  description: 'The token of the link in the e-mail (it names the tenant, the customer and the address, and is signed)',
  example: '12.3456.q1Wq9rXk0aBc.Zm9vYmFyYmF6cXV4cXV1eA',
});

const pageHeaders = Object.fromEntries(
  Object.keys(PAGE_HEADERS)
    .filter((name) => name !== 'content-type')
    .map((name) => [name, { schema: { type: 'string', example: PAGE_HEADERS[name] } }]),
);

/**
 * One-click unsubscribe (RFC 8058): the link every e-mail of an `email` destination carries in
 * `List-Unsubscribe` and in templates as `unsubscribe_url`. Public: the token is the credential.
 */
@ApiTags('Customers')
@Controller()
export class UnsubscribeController {
  constructor(private readonly unsubscribes: UnsubscribeService) {}

  @Get('unsubscribe/:token')
  @Public()
  @CredentialInPath()
  @TOKEN_PARAM
  @ApiOperation({
    summary: 'The unsubscribe page of an e-mail link: a button that unsubscribes (opening it changes nothing)',
    description:
      'A small HTML page whose button POSTs to the same address. Mail scanners and link previews fetch links, so ' +
      'the page itself never unsubscribes anyone. A token that is not genuine answers 404.',
  })
  @ApiResponse({
    status: 200,
    description: 'The page',
    headers: pageHeaders,
    content: { 'text/html': { schema: { type: 'string' } } },
  })
  showUnsubscribePage(@Param('token') token: string, @Res({ passthrough: true }) reply: FastifyReply): string {
    if (!this.unsubscribes.isGenuine(token)) throw new RecordNotFound('unsubscribe link');
    reply.headers(PAGE_HEADERS);
    return CONFIRM_PAGE;
  }

  @Post('unsubscribe/:token')
  @Public()
  @CredentialInPath()
  @IgnoredBody()
  @SuccessStatus(200)
  @ResponseMessage('Unsubscribed.')
  @TOKEN_PARAM
  @ApiOperation({
    summary: 'Unsubscribe at once (RFC 8058 one-click): the customer gets no more e-mail deliveries',
    description:
      'Whatever the body (mail providers send `List-Unsubscribe=One-Click` as a form) and without a redirect. ' +
      'The customer answers `unsubscribed_at` from now on (a change in the activity log and the change feed) and is ' +
      'left out of every later e-mail delivery. A repeat, a token of an address the customer no longer has, or of a ' +
      'customer who is gone changes nothing and answers the same. A token that is not genuine answers 404. A ' +
      "browser (`Accept: text/html`, the page's button) gets a page saying so.",
  })
  @ApiConsumes('application/x-www-form-urlencoded', 'text/plain', 'application/json')
  @ApiExtraModels(UnsubscribeResponse)
  @ApiResponse({
    status: 200,
    description: 'Unsubscribed',
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: ['code', 'message', 'data'],
          properties: {
            code: { type: 'integer', example: 200 },
            message: { type: 'string', example: 'Unsubscribed.' },
            data: { $ref: getSchemaPath(UnsubscribeResponse) },
          },
        },
      },
      'text/html': { schema: { type: 'string' } },
    },
    headers: pageHeaders,
  })
  async unsubscribe(
    @Param('token') token: string,
    @Req() request: FastifyRequest,
    @Headers('accept') accept: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<UnsubscribeResponse | string> {
    const answer = await this.unsubscribes.unsubscribe(token, request.id);
    if (!prefersHtml(accept)) return answer;
    reply.headers(PAGE_HEADERS);
    return DONE_PAGE;
  }

  @Delete('customers/:id/unsubscribe')
  @RequirePermission('customers.manage')
  @ApiIdParam('id')
  @ApiDelete('Resubscribe a customer who unsubscribed: e-mail deliveries include them again')
  resubscribeCustomer(@Auth() auth: AuthContext, @IdParam('id') id: number): Promise<null> {
    return this.unsubscribes.resubscribe(auth, id);
  }
}

/** A browser's form post asks for HTML first; a mail provider's POST and API clients do not. */
function prefersHtml(accept: string | undefined): boolean {
  const types = (accept ?? '').toLowerCase();
  return types.includes('text/html') && !types.startsWith('application/json');
}
