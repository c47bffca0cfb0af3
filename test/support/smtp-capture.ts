import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';

export interface CapturedMail {
  /** SMTP envelope: MAIL FROM and RCPT TO. */
  envelopeFrom: string | undefined;
  envelopeTo: string[];
  raw: Buffer;
  parsed: ParsedMail;
}

/** A real SMTP server on 127.0.0.1 (random port) that keeps every message it accepts. */
export class SmtpCapture {
  readonly messages: CapturedMail[] = [];
  private readonly server: SMTPServer;
  private port = 0;

  constructor(options: Partial<SMTPServerOptions> = {}) {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const raw = Buffer.concat(chunks);
          simpleParser(raw).then((parsed) => {
            const from = session.envelope.mailFrom;
            this.messages.push({
              envelopeFrom: from ? from.address : undefined,
              envelopeTo: session.envelope.rcptTo.map((r) => r.address),
              raw,
              parsed,
            });
            callback();
          }, callback);
        });
      },
      ...options,
    });
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  last(): CapturedMail {
    const message = this.messages.at(-1);
    if (!message) throw new Error('no message was captured');
    return message;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.server.address() as AddressInfo).port;
    return this;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
