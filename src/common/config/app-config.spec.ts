import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './app-config.js';

const base = () => ({
  DATA_DIR: mkdtempSync(join(tmpdir(), 'cs-config-')),
  JWT_SECRET: 'j'.repeat(32),
  SUPPRESSION_KEY: 's'.repeat(32),
});

describe('loadConfig: the destinations', () => {
  it('generates DESTINATION_SECRET_KEY once into DATA_DIR when unset, and takes the given one', () => {
    const env = base();
    const generated = loadConfig(env).destinationSecretKey;
    expect(generated.length).toBeGreaterThanOrEqual(32);
    expect(readFileSync(join(env.DATA_DIR, 'destination-secret-key'), 'utf8')).toBe(generated);
    expect(loadConfig(env).destinationSecretKey).toBe(generated);
    expect(loadConfig({ ...env, DESTINATION_SECRET_KEY: 'k'.repeat(16) }).destinationSecretKey).toBe('k'.repeat(16));
    expect(() => loadConfig({ ...env, DESTINATION_SECRET_KEY: 'short' })).toThrow(ConfigError);
  });

  it('reads FILE_RETENTION_DAYS (default 30)', () => {
    expect(loadConfig(base()).destinations.fileRetentionDays).toBe(30);
    expect(loadConfig({ ...base(), FILE_RETENTION_DAYS: '7' }).destinations.fileRetentionDays).toBe(7);
    expect(() => loadConfig({ ...base(), FILE_RETENTION_DAYS: '0' })).toThrow(/FILE_RETENTION_DAYS/);
  });

  it('signs with DKIM when all three DKIM_* are set, a PEM key with \\n for line breaks', () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const env = {
      ...base(),
      DKIM_DOMAIN: 'Mail.Example.com',
      DKIM_SELECTOR: 's1',
      DKIM_PRIVATE_KEY: pem.replace(/\n/g, '\\n'),
    };
    expect(loadConfig(env).destinations.dkim).toEqual({
      domain: 'mail.example.com',
      selector: 's1',
      privateKey: pem.trim(),
    });
    expect(loadConfig(base()).destinations.dkim).toBeUndefined();
    expect(() => loadConfig({ ...base(), DKIM_DOMAIN: 'mail.example.com' })).toThrow(/DKIM needs all of/);
    expect(() => loadConfig({ ...env, DKIM_PRIVATE_KEY: 'not a key' })).toThrow(/DKIM_PRIVATE_KEY/);
    expect(() => loadConfig({ ...env, DKIM_DOMAIN: 'not a domain' })).toThrow(/DKIM_DOMAIN/);
    expect(() => loadConfig({ ...env, DKIM_SELECTOR: 'a b' })).toThrow(/DKIM_SELECTOR/);
  });
});
