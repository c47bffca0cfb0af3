import { isDeepStrictEqual } from 'node:util';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../../common/config/app-config.js';
import { newSecret } from '../../../common/outbound/signature.js';
import type { Destination } from '../entities/destination.entity.js';
import type { PathStep } from './json-sites.js';
import { openSecrets, sealSecrets, secretTexts, type StoredSecret } from './connection-secrets.js';
import { SecretBox, SecretsUnreadable } from './secret-box.js';

/** The connection details of a destination for delivery: secrets back in place. */
export interface OpenedDetails {
  /** The parsed connection details with their secrets (undefined when the stored secrets cannot be read). */
  details: unknown;
  /** Places answered `********` that no stored secret fills. */
  missing: PathStep[][];
  /** The stored secrets were sealed under another DESTINATION_SECRET_KEY. */
  unreadable: boolean;
  /** Every secret's text: scrubbed from errors before they are kept or logged. */
  secrets: string[];
}

/**
 * Write-only secrets of destinations (docs/destinations.md#secrets): sealing the connection details
 * of a write (secrets out of the text, sealed beside it; `********` sent back keeps the stored
 * secret), opening them for delivery, and the generated signing secret of a webhook destination.
 */
@Injectable()
export class DestinationSecrets {
  private readonly box: SecretBox;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.box = new SecretBox(config.destinationSecretKey);
  }

  /** The columns of connection details as written: the text as answered, and the sealed secrets (kept as they were when unchanged). */
  seal(text: string, existing?: Pick<Destination, 'secrets'>): { connection_details: string; secrets: string | null } {
    const previous = existing ? this.stored(existing.secrets) : [];
    const sealed = sealSecrets(text, previous ?? []);
    if (sealed.secrets.length === 0) return { connection_details: sealed.text, secrets: null };
    // Sealing again would change the column (a new IV) on every write that changed nothing.
    if (existing?.secrets && isDeepStrictEqual(sealed.secrets, previous)) {
      return { connection_details: sealed.text, secrets: existing.secrets };
    }
    return { connection_details: sealed.text, secrets: this.box.seal(JSON.stringify(sealed.secrets)) };
  }

  open(destination: Pick<Destination, 'connection_details' | 'secrets'>): OpenedDetails {
    const stored = this.stored(destination.secrets);
    if (stored === undefined) return { details: undefined, missing: [], unreadable: true, secrets: [] };
    const { details, missing } = openSecrets(destination.connection_details, stored);
    return { details, missing, unreadable: false, secrets: secretTexts(stored) };
  }

  /** A new generated signing secret: the plain one (answered once) and the sealed one (stored). */
  newSigningSecret(): { plain: string; sealed: string } {
    const plain = newSecret();
    return { plain, sealed: this.box.seal(plain) };
  }

  /** The plain signing secret (undefined when none, or unreadable). */
  signingSecret(sealed: string | null): string | undefined {
    if (!sealed) return undefined;
    try {
      return this.box.open(sealed);
    } catch {
      return undefined;
    }
  }

  /** The secrets a webhook destination signs with now: the current one, and the previous one during its overlap. */
  signingSecrets(destination: Destination, now = Date.now()): string[] {
    const secrets = [this.signingSecret(destination.signing_secret)];
    if ((destination.previous_signing_secret_expires_at ?? 0) > now) {
      secrets.push(this.signingSecret(destination.previous_signing_secret));
    }
    return secrets.filter((secret): secret is string => secret !== undefined);
  }

  /** The stored secrets; [] when none; undefined when they cannot be read (another key). */
  private stored(sealed: string | null): StoredSecret[] | undefined {
    if (!sealed) return [];
    try {
      return JSON.parse(this.box.open(sealed)) as StoredSecret[];
    } catch (error) {
      if (error instanceof SecretsUnreadable) return undefined;
      throw error;
    }
  }
}
