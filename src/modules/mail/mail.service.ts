import { MailerService } from '@nestjs-modules/mailer';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { join } from 'node:path';
import { APP_CONFIG, type AppConfig } from '../../common/config/app-config.js';
import { ApiException } from '../../common/http/api-exception.js';
import type { SendEmailDto } from './dto/send-email.dto.js';
import type { SendEmailResponse } from './dto/send-email.response.js';
import { htmlToPlainText } from './plain-text.js';
import { resolveAttachments, type ResolvedAttachment } from './storage-attachments.js';

export interface MailAddress {
  name: string;
  address: string;
}

export interface OutgoingMail {
  to: string;
  subject: string;
  text?: string;
  html?: string;
  /** Default: `MAIL_FROM`. */
  from?: string | MailAddress;
  replyTo?: string;
  attachments?: ResolvedAttachment[];
}

/** The transport refused the message or could not be reached; the details go to the log only. */
export class MailTransportFailed extends ApiException {
  constructor() {
    super(502, { message: 'The mail server did not accept the message. Try again later.' });
  }
}

@Injectable()
export class MailService {
  private readonly logger = new Logger(MailService.name);

  constructor(
    private readonly mailer: MailerService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Hands the message to the transport; answers its Message-ID once the transport accepted it. */
  async send(mail: OutgoingMail): Promise<string> {
    try {
      const info: { messageId: string } = await this.mailer.sendMail({
        ...mail,
        from: mail.from ?? this.config.mailFrom,
      });
      return info.messageId;
    } catch (error) {
      const { code, responseCode, command, message } = error as Record<string, unknown>;
      this.logger.warn({ code, responseCode, command, reason: message }, 'mail transport failed');
      throw new MailTransportFailed();
    }
  }

  /** POST /api/send-email: attachments come from the storage area; the HTML goes with a plain-text version. */
  async sendEmail(dto: SendEmailDto): Promise<SendEmailResponse> {
    const attachments = await resolveAttachments(join(this.config.storageDir, 'app'), dto.attachments ?? []);
    const address = dto.from_email ?? this.config.mailFrom;
    const messageId = await this.send({
      to: dto.to,
      subject: dto.subject,
      html: dto.content,
      text: htmlToPlainText(dto.content),
      from: dto.from_name ? { name: dto.from_name, address } : address,
      replyTo: dto.reply_to ?? undefined,
      attachments,
    });
    return { message_id: messageId };
  }
}
