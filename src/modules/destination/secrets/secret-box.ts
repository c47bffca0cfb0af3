import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** The form of what a SecretBox seals: `v1.` + base64url of IV (12 bytes), tag (16 bytes) and ciphertext. */
const VERSION = 'v1.';

/** Sealed text that cannot be opened: sealed under another key (DESTINATION_SECRET_KEY changed), or damaged. */
export class SecretsUnreadable extends Error {
  constructor() {
    super('The stored secrets cannot be read with this DESTINATION_SECRET_KEY.');
  }
}

/**
 * AES-256-GCM under a key derived (HKDF-SHA256) from DESTINATION_SECRET_KEY, one random IV per
 * sealing. The GCM tag makes any change of the sealed text, or another key, fail to open.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(secret: string, purpose = 'destination-secrets') {
    this.key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), purpose, 32));
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return VERSION + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** The plain text; throws SecretsUnreadable. */
  open(sealed: string): string {
    if (!sealed.startsWith(VERSION)) throw new SecretsUnreadable();
    const bytes = Buffer.from(sealed.slice(VERSION.length), 'base64url');
    if (bytes.length < 28) throw new SecretsUnreadable();
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, 12));
      decipher.setAuthTag(bytes.subarray(12, 28));
      return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretsUnreadable();
    }
  }
}
