import { Inject, Injectable } from '@nestjs/common';
import type { SendMailOptions } from 'nodemailer';
import { APP_CONFIG, type AppConfig } from '../../../../common/config/app-config.js';
import { bareAddress, isMailAddress, type EmailConfig } from '../../config/destination-config.js';
import type { Template } from '../../templates/liquid-templates.js';
import type { BatchContext, PreparedRecord, RecordOutcome } from '../delivery-record.js';
import { MailTransports } from './mail-transports.js';
import { clip, elapsedSince, type DestinationSender, type SendResult, type SendTarget } from './sender.js';

/** The headers DKIM signs: nodemailer's list and the one-click unsubscribe's (RFC 8058 §4 wants it signed). */
const DKIM_HEADERS =
  'From:Sender:Reply-To:Subject:Date:Message-ID:To:Cc:MIME-Version:Content-Type:Content-Transfer-Encoding:' +
  'Content-ID:Content-Description:In-Reply-To:References:List-Id:List-Help:List-Unsubscribe:' +
  'List-Unsubscribe-Post:List-Subscribe:List-Post:List-Owner:List-Archive';

interface SmtpError {
  code?: string;
  responseCode?: number;
  response?: string;
  message?: string;
}

/**
 * `email` (docs/destinations/email.md): one message a record, to the mapped `email`, its subject,
 * HTML (escaped unless `| raw`) and text rendered from Liquid templates that see the mapped fields,
 * `customer`, `campaign`, `treatment_group` and `unsubscribe_url`. Every message carries
 * List-Unsubscribe (the record's one-click link) and List-Unsubscribe-Post (RFC 8058), List-Id
 * when `list_id` is set, a Message-ID made of the record's message_id, and a DKIM signature over
 * them when DKIM_* is configured. A 250 delivers the record; a 5xx reply to it rejects it; a 4xx,
 * a refused address or a lost connection leaves it and the rest of the batch pending.
 */
@Injectable()
export class EmailSender implements DestinationSender<EmailConfig> {
  constructor(
    private readonly transports: MailTransports,
    @Inject(APP_CONFIG) private readonly appConfig: AppConfig,
  ) {}

  async send(
    target: SendTarget<EmailConfig>,
    records: readonly PreparedRecord[],
    _context: BatchContext,
    stop: () => boolean,
  ): Promise<SendResult> {
    const { config, destination } = target;
    const started = performance.now();
    const transport = this.transports.for(destination.id, config.smtpUrl, config.concurrency);
    const outcomes: RecordOutcome[] = [];
    let status: number | string | null = null;
    let answer = '';
    let reached = false;
    for (const record of records) {
      if (stop()) {
        return {
          outcomes,
          transient: { error: 'the instance is stopping' },
          reached,
          status,
          answer,
          durationMs: elapsedSince(started),
        };
      }
      let message: SendMailOptions;
      try {
        message = this.message(config, record);
      } catch (error) {
        const reason = clip((error as Error).message);
        outcomes.push({ message_id: record.message_id, status: 'rejected', reason });
        answer = reason;
        continue;
      }
      try {
        const info = (await transport.transporter.sendMail(message)) as { response?: string };
        reached = true;
        if (transport.kind === 'eml') {
          status = 'written';
          answer = 'written as an .eml file under STORAGE_DIR/mail/ (MAIL_URL is unset)';
        } else {
          const reply = target.scrub(String(info.response ?? ''));
          status = replyCode(reply) ?? 250;
          answer = clip(reply);
        }
        outcomes.push({ message_id: record.message_id, status: 'delivered' });
      } catch (caught) {
        const error = caught as SmtpError;
        const reply = target.scrub(String(error.response ?? error.message ?? 'the message was not sent'));
        status = error.responseCode ?? null;
        answer = clip(reply);
        const permanent =
          error.responseCode !== undefined &&
          error.responseCode >= 500 &&
          (error.code === 'EENVELOPE' || error.code === 'EMESSAGE');
        if (permanent) {
          reached = true;
          outcomes.push({ message_id: record.message_id, status: 'rejected', reason: clip(reply) });
          continue;
        }
        // The server or the way to it failed: this record and the rest stay pending.
        const error4 = error.responseCode ? `SMTP ${error.responseCode}: ${reply}` : reply;
        return {
          outcomes,
          transient: { error: clip(error4) },
          reached,
          status,
          answer,
          durationMs: elapsedSince(started),
        };
      }
    }
    return { outcomes, reached, status, answer, durationMs: elapsedSince(started) };
  }

  /** The message of one record; throws (the record is rejected) when it has no address or a template fails. */
  private message(config: EmailConfig, record: PreparedRecord): SendMailOptions {
    const to = record.data.email;
    if (typeof to !== 'string' || !isMailAddress(to))
      throw new Error('no_address: the mapped email is no e-mail address');
    const unsubscribe = record.scope.unsubscribe_url;
    if (!unsubscribe) throw new Error('no_address: the record has no unsubscribe link');
    const scope = {
      ...record.data,
      customer: record.scope.customer,
      campaign: record.scope.campaign,
      treatment_group: record.scope.treatment_group,
      unsubscribe_url: unsubscribe,
    };
    const render = (template: Template | null) => (template ? template.render(scope) : undefined);
    const dkim = this.appConfig.destinations.dkim;
    const domain = dkim?.domain ?? bareAddress(config.from).split('@')[1];
    const headers: Record<string, string> = {
      'List-Unsubscribe': `<${unsubscribe}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    };
    if (config.listId) headers['List-Id'] = config.listId.includes('<') ? config.listId : `<${config.listId}>`;
    let subject: string | undefined;
    let html: string | undefined;
    let text: string | undefined;
    try {
      subject = render(config.subject);
      html = render(config.html);
      text = render(config.text);
    } catch (error) {
      throw new Error(`a template could not render: ${(error as Error).message}`, { cause: error });
    }
    return {
      from: config.from,
      to,
      replyTo: config.replyTo,
      subject: (subject ?? '').replace(/[\r\n]+/g, ' '),
      html,
      text,
      messageId: `<${record.message_id.replace(/[^A-Za-z0-9._+-]/g, '-')}@${domain}>`,
      headers,
      dkim: dkim
        ? {
            domainName: dkim.domain,
            keySelector: dkim.selector,
            privateKey: dkim.privateKey,
            headerFieldNames: DKIM_HEADERS,
          }
        : undefined,
    };
  }
}

const replyCode = (reply: string): number | undefined => {
  const code = /^(\d{3})\b/.exec(reply);
  return code ? Number(code[1]) : undefined;
};
