import type { AppConfig } from '../../../common/config/app-config.js';
import type { Destination } from '../entities/destination.entity.js';
import { DestinationSecrets } from './destination-secrets.js';

const secrets = (key = 'a destination key of 16+ characters') =>
  new DestinationSecrets({ destinationSecretKey: key } as AppConfig);

describe('DestinationSecrets', () => {
  it('seals the secrets of a write, and keeps the sealed column of a write that changes none of them', () => {
    const first = secrets().seal('{"url":"https://h.example","token":"t-123"}');
    expect(first.connection_details).toBe('{"url":"https://h.example","token":"********"}');
    expect(first.secrets).toMatch(/^v1\./);
    const again = secrets().seal(first.connection_details, first);
    expect(again).toEqual(first);
    const changed = secrets().seal('{"url":"https://h.example","token":"t-456"}', first);
    expect(changed.secrets).not.toBe(first.secrets);
    expect(secrets().seal('{"url":"https://h.example"}', first)).toEqual({
      connection_details: '{"url":"https://h.example"}',
      secrets: null,
    });
  });

  it('opens them for delivery; under another key, says they cannot be read', () => {
    const sealed = secrets().seal('{"token":"t-123","password":"p-456"}');
    expect(secrets().open(sealed)).toEqual({
      details: { token: 't-123', password: 'p-456' },
      missing: [],
      unreadable: false,
      secrets: ['t-123', 'p-456'],
    });
    expect(secrets('another key of 16+ characters').open(sealed)).toMatchObject({
      unreadable: true,
      details: undefined,
    });
    // A write under the new key forgets what it cannot read: the places sent as ******** are missing.
    const rewritten = secrets('another key of 16+ characters').seal(sealed.connection_details, sealed);
    expect(secrets('another key of 16+ characters').open(rewritten).missing).toEqual([['token'], ['password']]);
  });

  it('signs with the current secret and, during its overlap, the previous one', () => {
    const box = secrets();
    const current = box.newSigningSecret();
    const previous = box.newSigningSecret();
    const destination = {
      signing_secret: current.sealed,
      previous_signing_secret: previous.sealed,
      previous_signing_secret_expires_at: 2_000,
    } as Destination;
    expect(box.signingSecrets(destination, 1_000)).toEqual([current.plain, previous.plain]);
    expect(box.signingSecrets(destination, 3_000)).toEqual([current.plain]);
    expect(current.plain).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  });
});
