import { MailerModule, type MailerOptions } from '@nestjs-modules/mailer';
import { Module } from '@nestjs/common';
import { join } from 'node:path';
import { APP_CONFIG, type AppConfig } from '../../common/config/app-config.js';
import { EmlFileTransport } from './eml-file.transport.js';
import { MailController } from './mail.controller.js';
import { MailService } from './mail.service.js';

/** A request waits at most this long for the SMTP server; then it answers 502. */
const SMTP_TIMEOUT_MS = 15_000;

export function mailerOptions(config: AppConfig): MailerOptions {
  const transport = config.mailUrl
    ? {
        url: config.mailUrl,
        connectionTimeout: SMTP_TIMEOUT_MS,
        greetingTimeout: SMTP_TIMEOUT_MS,
        socketTimeout: SMTP_TIMEOUT_MS,
      }
    : new EmlFileTransport(join(config.storageDir, 'mail'));
  // The sender default (MAIL_FROM) is applied by MailService.
  return { transport, sendTimeout: 2 * SMTP_TIMEOUT_MS };
}

/** SMTP when MAIL_URL is set, `.eml` files under STORAGE_DIR/mail/ otherwise (API-CONVENTIONS §1, §11). */
@Module({
  imports: [MailerModule.forRootAsync({ inject: [APP_CONFIG], useFactory: mailerOptions })],
  controllers: [MailController],
  providers: [MailService],
  exports: [MailService],
})
export class MailModule {}
