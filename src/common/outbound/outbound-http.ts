import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { lookup as dnsLookupPromise } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import { refusalOf, urlRefusal, type AllowedTargets } from './address-policy.js';

/** What one attempt came to. */
export interface SendResult {
  statusCode?: number;
  durationMs: number;
  /** Why there is no answer (refused address, timeout, connection error), or why a 3xx is no success. */
  error?: string;
  /** The first KiB of the answer's body. */
  responseBody?: string;
  retryAfter?: string;
}

/** The first this many bytes of an answer are kept by default (the webhook log). */
const KEPT_BODY_BYTES = 1024;

class RefusedAddress extends Error {}

/** How one request goes out beyond its URL, headers and body. */
export interface SendOptions {
  /** POST (default) or PUT. */
  method?: 'POST' | 'PUT';
  /** Overrides the sender's default wait for the whole answer. */
  timeoutMs?: number;
  /** The first this many bytes of the answer are kept (default 1 KiB). */
  keepBytes?: number;
}

/**
 * The service's one way out to the network (webhooks, destinations): a JSON request goes only to
 * an address the policy allows (WEBHOOK_ALLOWED_HOSTS, address-policy.ts), checked on the name's
 * resolution and again on the socket actually connected (DNS can change between the write of the
 * URL and a send). It never follows a redirect and waits at most `timeoutMs` for the whole
 * answer. Connections are kept alive per origin.
 */
export class OutboundHttp {
  private readonly agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
  };

  constructor(
    readonly allowed: AllowedTargets,
    private readonly timeoutMs: number,
  ) {}

  /** Why `url` may not be written as a target (undefined when it may): see urlRefusal. */
  refusalOf(url: string): Promise<string | undefined> {
    return urlRefusal(url, this.allowed, (host) => dnsLookupAll(host));
  }

  send(url: string, headers: Record<string, string>, body: string, options: SendOptions = {}): Promise<SendResult> {
    const timeoutMs = options.timeoutMs ?? this.timeoutMs;
    const keepBytes = options.keepBytes ?? KEPT_BODY_BYTES;
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    return new Promise((resolve) => {
      let settled = false;
      const deadline: { timer?: NodeJS.Timeout } = {};
      const done = (result: Omit<SendResult, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline.timer);
        resolve({ ...result, durationMs: elapsed() });
      };
      const target = new URL(url);
      const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
      if (isIP(host)) {
        const refused = refusalOf(host, host, this.allowed);
        if (refused) return done({ error: `refused: ${refused}` });
      }
      const client = target.protocol === 'https:' ? https : http;
      const request = client.request(
        target,
        {
          method: options.method ?? 'POST',
          agent: this.agents[target.protocol as 'http:' | 'https:'],
          lookup: this.lookup(host),
          headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (response) => {
          const chunks: Buffer[] = [];
          let kept = 0;
          response.on('data', (chunk: Buffer) => {
            if (kept < keepBytes) {
              chunks.push(chunk.subarray(0, keepBytes - kept));
              kept += Math.min(chunk.length, keepBytes - kept);
            }
          });
          response.on('end', () => {
            const status = response.statusCode ?? 0;
            done({
              statusCode: status,
              responseBody: Buffer.concat(chunks).toString('utf8'),
              retryAfter: header(response.headers['retry-after']),
              error:
                status >= 300 && status < 400
                  ? `redirect to ${header(response.headers.location) ?? '?'} not followed`
                  : undefined,
            });
          });
          response.on('error', (error) => done({ statusCode: response.statusCode, error: error.message }));
        },
      );
      deadline.timer = setTimeout(() => {
        request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      request.on('socket', (socket: Socket) => {
        // The address actually connected to, whatever resolved it (a kept-alive socket was checked when it connected).
        if (!socket.connecting) return;
        socket.once('connect', () => {
          const refused = socket.remoteAddress ? refusalOf(socket.remoteAddress, host, this.allowed) : 'no address';
          if (refused) request.destroy(new RefusedAddress(`refused: ${refused}`));
        });
      });
      request.on('error', (error) => done({ error: error.message }));
      request.end(body);
    });
  }

  /** Resolves the name and refuses it when any of its addresses may not be reached. */
  private lookup(host: string): LookupFunction {
    return (hostname, options, callback) => {
      dnsLookup(
        hostname,
        { all: true, family: options.family as number | undefined },
        (error, addresses: LookupAddress[]) => {
          if (error) return callback(error, '', 0);
          const refused = addresses.map((a) => refusalOf(a.address, host, this.allowed)).find(Boolean);
          if (refused) return callback(new RefusedAddress(`refused: ${hostname}: ${refused}`), '', 0);
          if (options.all) return (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, addresses);
          callback(null, addresses[0].address, addresses[0].family);
        },
      );
    };
  }

  close(): void {
    this.agents['http:'].destroy();
    this.agents['https:'].destroy();
  }

  onApplicationShutdown(): void {
    this.close();
  }
}

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

const dnsLookupAll = (host: string) => dnsLookupPromise(host, { all: true });
