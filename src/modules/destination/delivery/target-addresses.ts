import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { refusalOf } from '../../../common/outbound/address-policy.js';
import { OutboundHttp } from '../../../common/outbound/outbound-http.js';

/** A name's addresses are looked up again after this long (a read of a destination does not wait on DNS each time). */
const RESOLVED_FRESH_MS = 60_000;
/** A lookup that takes longer is a problem of the destination, not a read that hangs. */
const LOOKUP_TIMEOUT_MS = 3_000;
/** A name that could not be resolved is tried again after this long (reads do not each wait on a failing resolver). */
const FAILED_FRESH_MS = 10_000;

/** A host name or address without IPv6 brackets or a trailing dot. */
export const bareHost = (hostname: string): string => hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');

/** What a connection to a refused address fails with. */
export class RefusedAddress extends Error {}

/**
 * The SSRF policy of the service's webhooks (WEBHOOK_ALLOWED_HOSTS, src/common/outbound/address-policy.ts),
 * applied to every host a destination names: its webhook URL, its SMTP server, its AMQP broker.
 * `refusal` says why a URL's host may not be reached (each of its addresses must be public unicast,
 * or allowed by the operator) and is what a destination answers as a problem; `lookup` is the
 * resolver every connection of the SMTP and AMQP senders uses, so that the address actually
 * connected to is checked at every connection (DNS can change after a check). The HTTP sender is
 * OutboundHttp, which does the same on its own sockets.
 */
@Injectable()
export class TargetAddresses {
  private readonly resolved = new LRUCache<string, { at: number; addresses: Promise<string[]> }>({ max: 5_000 });

  constructor(private readonly http: OutboundHttp) {}

  /** Why the URL's host may not be reached, or undefined. With `fresh`, the name is resolved anew. */
  async refusal(url: string, options: { fresh?: boolean } = {}): Promise<string | undefined> {
    let host: string;
    try {
      host = bareHost(new URL(url).hostname);
    } catch {
      return 'Not a URL.';
    }
    if (this.isNamed(host)) return undefined;
    if (isIP(host)) {
      const refused = refusalOf(host, host, this.http.allowed);
      return refused ? privateMessage(refused) : undefined;
    }
    let addresses: string[];
    try {
      addresses = await this.addresses(host, options.fresh ?? false);
    } catch {
      return `The host ${host} cannot be resolved.`;
    }
    const refused = addresses.map((address) => refusalOf(address, host, this.http.allowed)).find(Boolean);
    return refused ? privateMessage(refused) : undefined;
  }

  /** Refuses a literal address the policy does not allow (a name is checked by `lookup` as it resolves). */
  checkLiteral(host: string): void {
    const bare = bareHost(host);
    if (!isIP(bare) || this.isNamed(bare)) return;
    const refused = refusalOf(bare, bare, this.http.allowed);
    if (refused) throw new RefusedAddress(`refused: ${refused}`);
  }

  /** A resolver for net.connect / tls.connect that refuses a name any of whose addresses the policy refuses. */
  lookup(host: string): LookupFunction {
    const bare = bareHost(host);
    return (hostname, options, callback) => {
      dnsLookup(
        hostname,
        { all: true, family: options.family as number | undefined },
        (error, found: LookupAddress[]) => {
          if (error) return callback(error, '', 0);
          const refused = this.isNamed(bare)
            ? undefined
            : found.map((a) => refusalOf(a.address, bare, this.http.allowed)).find(Boolean);
          if (refused) return callback(new RefusedAddress(`refused: ${hostname}: ${refused}`), '', 0);
          if (options.all) return (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, found);
          callback(null, found[0].address, found[0].family);
        },
      );
    };
  }

  private isNamed(host: string): boolean {
    return this.http.allowed.hosts.has(host.toLowerCase());
  }

  private addresses(host: string, fresh: boolean): Promise<string[]> {
    const now = Date.now();
    const known = this.resolved.get(host);
    if (known && !fresh && now - known.at < RESOLVED_FRESH_MS) return known.addresses;
    const addresses = new Promise<string[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('timeout')), LOOKUP_TIMEOUT_MS);
      dnsLookup(host, { all: true }, (error, found: LookupAddress[]) => {
        clearTimeout(timer);
        if (error) reject(error);
        else resolve(found.map((a) => a.address));
      });
    });
    const entry = { at: now, addresses };
    this.resolved.set(host, entry);
    // A failed lookup is kept a little while only.
    addresses.catch(() => (entry.at = now - RESOLVED_FRESH_MS + FAILED_FRESH_MS));
    return addresses;
  }
}

const privateMessage = (refused: string) =>
  `The address must not be private or local (${refused}); an operator may allow it with WEBHOOK_ALLOWED_HOSTS.`;
