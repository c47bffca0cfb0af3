import fc from 'fast-check';
import {
  MASK,
  isSecretName,
  maskSecrets,
  maskUrl,
  openSecrets,
  scrub,
  sealSecrets,
  secretTexts,
  urlPassword,
} from './connection-secrets.js';
import { valueSites } from './json-sites.js';
import { SecretBox, SecretsUnreadable } from './secret-box.js';

describe('valueSites', () => {
  it('finds every value with its path and span, keeping the text as written', () => {
    const text = ' { "a" : [1, {"b":"x\\"y"}], "c":{}, "d" : null } ';
    const sites = valueSites(text).map((s) => [s.path.join('/'), text.slice(s.start, s.end), s.kind]);
    expect(sites).toEqual([
      ['', '{ "a" : [1, {"b":"x\\"y"}], "c":{}, "d" : null }', 'object'],
      ['a', '[1, {"b":"x\\"y"}]', 'array'],
      ['a/0', '1', 'scalar'],
      ['a/1', '{"b":"x\\"y"}', 'object'],
      ['a/1/b', '"x\\"y"', 'string'],
      ['c', '{}', 'object'],
      ['d', 'null', 'scalar'],
    ]);
  });

  it('walks a value nested far deeper than the stack allows recursion', () => {
    const depth = 200_000;
    const text = '['.repeat(depth) + '"x"' + ']'.repeat(depth);
    const sites = valueSites(text);
    expect(sites).toHaveLength(depth + 1);
    expect(sites.find((s) => s.kind === 'string')!.path).toHaveLength(depth);
  });

  it('finds every value of any JSON text (property)', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        const sites = valueSites(text);
        for (const site of sites) expect(() => JSON.parse(text.slice(site.start, site.end))).not.toThrow();
        expect([sites[0].path, sites[0].start, sites[0].end]).toEqual([[], 0, text.length]);
      }),
    );
  });
});

describe('secret names and URL passwords', () => {
  it.each([
    ['password', true],
    ['Password', true],
    ['api_key', true],
    ['apiKey', true],
    ['X-API-Key', true],
    ['private_key', true],
    ['client_secret', true],
    ['access_token', true],
    ['Authorization', true],
    ['secret', true],
    ['routing_key', false],
    ['url', false],
    ['secretary_name', false],
    ['tokens_used', false],
  ])('%s is a secret name: %s', (name, secret) => expect(isSecretName(name)).toBe(secret));

  it('finds the password of a URL and masks it alone', () => {
    expect(maskUrl('amqps://user:p%40ss@broker.example.com:5671/vhost')).toBe(
      `amqps://user:${MASK}@broker.example.com:5671/vhost`,
    );
    expect(maskUrl('smtp://user:pw@mail.example.com/a@b')).toBe(`smtp://user:${MASK}@mail.example.com/a@b`);
    for (const plain of ['https://example.com/a@b', 'smtp://user@mail.example.com', 'smtp://user:@host', 'x:y@z']) {
      expect({ plain, password: urlPassword(plain) }).toEqual({ plain, password: undefined });
    }
  });
});

describe('sealSecrets, openSecrets, maskSecrets', () => {
  const text = '{ "url": "amqps://app:s3cret@broker.example.com/v", "headers": {"X-Api-Key": "k-123"}, "token" : 42 }';

  it('answers every secret as ******** and keeps every other byte', () => {
    const sealed = sealSecrets(text);
    expect(sealed.text).toBe(
      `{ "url": "amqps://app:${MASK}@broker.example.com/v", "headers": {"X-Api-Key": "${MASK}"}, "token" : "${MASK}" }`,
    );
    expect(sealed.secrets).toHaveLength(3);
    expect(maskSecrets(text)).toBe(sealed.text);
    expect(maskSecrets(sealed.text)).toBe(sealed.text);
    expect(JSON.stringify(sealed)).not.toContain('***s3cret');
  });

  it('gives the secrets back for delivery', () => {
    const sealed = sealSecrets(text);
    const { details, missing } = openSecrets(sealed.text, sealed.secrets);
    expect(details).toEqual(JSON.parse(text));
    expect(missing).toEqual([]);
  });

  it('keeps a stored secret sent back as ********, a URL sent back as answered, and takes new ones', () => {
    const first = sealSecrets(text);
    const again = sealSecrets(first.text, first.secrets);
    expect(again.text).toBe(first.text);
    expect(openSecrets(again.text, again.secrets).details).toEqual(JSON.parse(text));

    const changed = sealSecrets(
      `{"url": "amqps://app:${MASK}@broker.example.com/v", "headers": {"X-Api-Key": "new"}, "token": "${MASK}"}`,
      first.secrets,
    );
    expect(openSecrets(changed.text, changed.secrets).details).toEqual({
      url: 'amqps://app:s3cret@broker.example.com/v',
      headers: { 'X-Api-Key': 'new' },
      token: 42,
    });
  });

  it('forgets a masked password whose URL changed, and reports the places no secret fills', () => {
    const first = sealSecrets(text);
    const moved = sealSecrets(
      `{"url": "amqps://app:${MASK}@evil.example.net/v", "headers": {"X-Api-Key": "${MASK}"}, "password": "${MASK}"}`,
      first.secrets,
    );
    const opened = openSecrets(moved.text, moved.secrets);
    expect(opened.missing).toEqual([['url'], ['password']]);
    expect(opened.details).toMatchObject({ headers: { 'X-Api-Key': 'k-123' } });
  });

  it('masks a secret-named object or array as a whole', () => {
    const sealed = sealSecrets('{"secret": {"a": "b", "password": "c"}, "list": [{"token": ["x"]}]}');
    expect(sealed.text).toBe(`{"secret": "${MASK}", "list": [{"token": "${MASK}"}]}`);
    expect(openSecrets(sealed.text, sealed.secrets).details).toEqual({
      secret: { a: 'b', password: 'c' },
      list: [{ token: ['x'] }],
    });
  });

  it('treats a __proto__ key as data', () => {
    const sealed = sealSecrets('{"__proto__": {"token": "t"}}');
    const { details } = openSecrets(sealed.text, sealed.secrets);
    expect(Object.getPrototypeOf(details)).toBe(Object.prototype);
    expect(JSON.stringify(details)).toBe('{"__proto__":{"token":"t"}}');
  });

  it('never answers a secret, and gives every one back (property)', () => {
    const secret = fc.string({ minLength: 3 }).filter((s) => s !== MASK && !s.includes(MASK));
    const details = fc.record({
      url: fc.webUrl(),
      password: secret,
      nested: fc.dictionary(fc.string(), fc.oneof(fc.integer(), fc.string())),
      api_key: fc.option(secret),
    });
    fc.assert(
      fc.property(details, fc.constantFrom(0, 2), (value, indent) => {
        const raw = JSON.stringify(value, null, indent);
        const sealed = sealSecrets(raw);
        const answered = JSON.parse(sealed.text) as Record<string, unknown>;
        expect(answered.password).toBe(MASK);
        if (value.api_key !== null) expect(answered.api_key).toBe(MASK);
        expect(openSecrets(sealed.text, sealed.secrets).details).toEqual(JSON.parse(raw));
        // Sent back as answered, nothing changes.
        const again = sealSecrets(sealed.text, sealed.secrets);
        expect(again.text).toBe(sealed.text);
        expect(openSecrets(again.text, again.secrets).details).toEqual(JSON.parse(raw));
      }),
    );
  });

  it('leaves text without secrets byte for byte (property)', () => {
    const plainKey = fc.string().filter((key) => !isSecretName(key));
    const plain = fc.dictionary(
      plainKey,
      fc.oneof(
        fc.integer(),
        fc.boolean(),
        fc.string().filter((s) => !s.includes('@')),
      ),
    );
    fc.assert(
      fc.property(plain, (value) => {
        const raw = JSON.stringify(value, null, 1);
        expect(sealSecrets(raw)).toEqual({ text: raw, secrets: [] });
        expect(maskSecrets(raw)).toBe(raw);
      }),
    );
  });

  it('scrubs secrets from error texts', () => {
    const sealed = sealSecrets('{"url": "smtp://u:p%40ss@host", "token": "abcdef"}');
    const texts = secretTexts(sealed.secrets);
    expect(scrub('login failed for p@ss with abcdef (p%40ss)', texts)).toBe(
      `login failed for ${MASK} with ${MASK} (${MASK})`,
    );
  });
});

describe('SecretBox', () => {
  it('seals and opens; another key or a changed text does not open', () => {
    const box = new SecretBox('a key of sixteen characters or more');
    const sealed = box.seal('{"a":"b"}');
    expect(sealed).toMatch(/^v1\./);
    expect(box.seal('{"a":"b"}')).not.toBe(sealed);
    expect(box.open(sealed)).toBe('{"a":"b"}');
    expect(() => new SecretBox('another key, also long enough').open(sealed)).toThrow(SecretsUnreadable);
    expect(() => box.open(sealed.slice(0, -2) + 'AA')).toThrow(SecretsUnreadable);
    expect(() => box.open('garbage')).toThrow(SecretsUnreadable);
  });
});
