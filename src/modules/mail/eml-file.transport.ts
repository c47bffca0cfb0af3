import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MailMessage, Transport } from 'nodemailer';

export interface EmlFileInfo {
  envelope: ReturnType<MailMessage['message']['getEnvelope']>;
  messageId: string;
  /** The file the message was written to. */
  path: string;
}

/**
 * The transport used when MAIL_URL is unset: each message becomes one `.eml` file
 * (`<timestamp>-<random>.eml`) in the given directory, readable by any mail client.
 */
export class EmlFileTransport implements Transport<EmlFileInfo> {
  readonly name = 'EmlFileTransport';
  readonly version = '1.0.0';

  constructor(readonly directory: string) {}

  send(mail: MailMessage<EmlFileInfo>, done: (err: Error | null, info: EmlFileInfo) => void): void {
    const fail = (err: Error) => done(err, undefined as unknown as EmlFileInfo);
    mail.message.build((buildError, raw) => {
      if (buildError) return fail(buildError);
      const path = join(this.directory, `${Date.now()}-${randomBytes(6).toString('hex')}.eml`);
      mkdir(this.directory, { recursive: true })
        .then(() => writeFile(path, raw, { flag: 'wx' }))
        .then(
          () => done(null, { envelope: mail.message.getEnvelope(), messageId: mail.message.messageId(), path }),
          fail,
        );
    });
  }
}
