import { createHash, createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../common/config/app-config.js';

/** What an unsubscribe token names. */
export interface UnsubscribeClaim {
  tenantId: number;
  customerId: number;
  /** The first 9 bytes of the SHA-256 of the address (trimmed, lower case), base64url. */
  address: string;
}

const TOKEN = /^(\d{1,15})\.(\d{1,15})\.([A-Za-z0-9_-]{12})\.([A-Za-z0-9_-]{22})$/;

const addressTag = (address: string) =>
  createHash('sha256').update(address.trim().toLowerCase()).digest().subarray(0, 9).toString('base64url');

/**
 * One-click unsubscribe tokens (RFC 8058): `<tenant>.<customer>.<address tag>.<mac>`, the mac an
 * HMAC-SHA256 (128 bits kept) under a key derived from DESTINATION_SECRET_KEY, which every instance
 * shares. Nobody without the key can make one, or turn one customer's token into another's; the
 * address is named by a hash, so a token carries no e-mail address.
 */
@Injectable()
export class UnsubscribeTokens {
  private readonly key: Buffer;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.key = Buffer.from(hkdfSync('sha256', config.destinationSecretKey, Buffer.alloc(0), 'unsubscribe-tokens', 32));
  }

  token(tenantId: number, customerId: number, address: string): string {
    const body = `${tenantId}.${customerId}.${addressTag(address)}`;
    return `${body}.${this.mac(body)}`;
  }

  /** The link a message carries: APP_URL/api/unsubscribe/TOKEN. */
  url(tenantId: number, customerId: number, address: string): string {
    return `${this.config.appUrl}/api/unsubscribe/${this.token(tenantId, customerId, address)}`;
  }

  /** What a genuine token names; undefined for anything else (malformed, forged, altered). */
  verify(token: string): UnsubscribeClaim | undefined {
    const parts = TOKEN.exec(token);
    if (!parts) return undefined;
    const body = `${parts[1]}.${parts[2]}.${parts[3]}`;
    const expected = Buffer.from(this.mac(body));
    const given = Buffer.from(parts[4]);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    return { tenantId: Number(parts[1]), customerId: Number(parts[2]), address: parts[3] };
  }

  /** Whether the token was made for this address. */
  names(claim: UnsubscribeClaim, address: string | null): boolean {
    return address !== null && addressTag(address) === claim.address;
  }

  private mac(body: string): string {
    return createHmac('sha256', this.key).update(body).digest().subarray(0, 16).toString('base64url');
  }
}
