import { createHash } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { createTransport, type Transporter } from 'nodemailer';
import { APP_CONFIG, type AppConfig } from '../../../../common/config/app-config.js';
import { EmlFileTransport } from '../../../mail/eml-file.transport.js';
import { TargetAddresses } from '../target-addresses.js';

type SocketCallback = (error: Error | null, options?: { connection: Socket } | false) => void;

/** How long the SMTP server may take to answer, at every step. */
export const SMTP_TIMEOUT_MS = 15_000;

/** A transport and what it is: SMTP (a server answers with reply codes) or `.eml` files. */
export interface MailTransport {
  transporter: Transporter;
  kind: 'smtp' | 'eml';
}

/**
 * The mail transports of `email` destinations: a pooled SMTP transport per destination and
 * `smtp_url` (its connections opened through the address policy, like every connection to a host a
 * tenant named), the service's own MAIL_URL (the operator's server: no policy) shared by the
 * destinations without one, or `.eml` files under STORAGE_DIR/mail/ when MAIL_URL is unset.
 */
@Injectable()
export class MailTransports implements OnApplicationShutdown {
  private readonly own: MailTransport;
  private readonly pools = new LRUCache<string, MailTransport>({
    max: 200,
    dispose: (transport) => transport.transporter.close(),
  });

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly addresses: TargetAddresses,
  ) {
    this.own = config.mailUrl
      ? { kind: 'smtp', transporter: createTransport({ ...smtpOptions(config.mailUrl, 4), pool: true }) }
      : { kind: 'eml', transporter: createTransport(new EmlFileTransport(join(config.storageDir, 'mail'))) };
  }

  /** The transport of a destination's `smtp_url`, or the service's own. */
  for(destinationId: number, smtpUrl: string | undefined, connections: number): MailTransport {
    if (!smtpUrl) return this.own;
    const key = `${destinationId}:${connections}:${createHash('sha256').update(smtpUrl).digest('base64url')}`;
    let transport = this.pools.get(key);
    if (!transport) {
      transport = {
        kind: 'smtp',
        transporter: createTransport({
          ...smtpOptions(smtpUrl, connections),
          pool: true,
          getSocket: (options: { host?: string; port?: number | string }, callback: SocketCallback) =>
            this.connect(options.host ?? '', Number(options.port), callback),
        }),
      };
      this.pools.set(key, transport);
    }
    return transport;
  }

  /** A connection to a host a tenant named: refused unless the address policy allows where it resolves. */
  private connect(host: string, port: number, callback: SocketCallback): void {
    let answered = false;
    const answer = (error: Error | null, socket?: Socket) => {
      if (answered) return;
      answered = true;
      callback(error, socket ? { connection: socket } : undefined);
    };
    try {
      this.addresses.checkLiteral(host);
    } catch (error) {
      return answer(error as Error);
    }
    const socket = connect({ host, port, lookup: this.addresses.lookup(host) });
    socket.setTimeout(SMTP_TIMEOUT_MS, () =>
      socket.destroy(new Error(`no connection within ${SMTP_TIMEOUT_MS / 1000} s`)),
    );
    socket.once('error', (error) => answer(error));
    socket.once('connect', () => {
      socket.setTimeout(0);
      answer(null, socket);
    });
  }

  onApplicationShutdown(): void {
    this.pools.clear();
    this.own.transporter.close();
  }
}

function smtpOptions(url: string, connections: number) {
  return {
    url,
    maxConnections: connections,
    maxMessages: 1_000,
    connectionTimeout: SMTP_TIMEOUT_MS,
    greetingTimeout: SMTP_TIMEOUT_MS,
    socketTimeout: SMTP_TIMEOUT_MS,
  };
}
