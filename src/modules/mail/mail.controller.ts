import { Body, Controller, Post } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from '../../common/auth/require-permission.decorator.js';
import { ApiEnvelope } from '../../common/openapi/api-envelope.decorator.js';
import { ErrorBodyDto } from '../../common/openapi/common-responses.js';
import { SendEmailDto } from './dto/send-email.dto.js';
import { SendEmailResponse } from './dto/send-email.response.js';
import { MailService } from './mail.service.js';
import { IdempotentReplays, ResponseMessage, SuccessStatus } from '../../common/http/route-behaviour.js';

@ApiTags('Mail')
@Controller()
export class MailController {
  constructor(private readonly mail: MailService) {}

  @Post('send-email')
  @IdempotentReplays()
  @RequirePermission('mail.send')
  @SuccessStatus(200)
  @ApiOperation({
    summary: 'Send an e-mail',
    description:
      'Sends `content` as HTML with a plain-text version derived from it. Attachment paths are relative to ' +
      '`STORAGE_DIR/app/`; a path that leaves it or names no file is a 422 on `attachments.N.path`. ' +
      'Answers once the transport (SMTP, or `.eml` files when `MAIL_URL` is unset) accepted the message.',
  })
  @ResponseMessage('Email sent successfully.')
  @ApiEnvelope(SendEmailResponse)
  @ApiResponse({
    status: 502,
    description: 'The mail transport refused the message or was unreachable',
    type: ErrorBodyDto,
  })
  sendEmail(@Body() dto: SendEmailDto): Promise<SendEmailResponse> {
    return this.mail.sendEmail(dto);
  }
}
