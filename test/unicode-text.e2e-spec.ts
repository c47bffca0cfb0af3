import type { Response } from 'supertest';
import { login } from './support/auth.js';
import { client, created, dataOf, newCampaign, startApp, type Row } from './support/campaign-fixtures.js';
import type { TestApp } from './support/test-app.js';
import { tableCounts } from './property/support/targets.js';

/**
 * Text must be well-formed Unicode. JSON can carry a lone UTF-16 surrogate as an escape
 * (`"\ud800"`); neither database can store one (both kept U+FFFD instead), so such text is a 422
 * on its field, in the style of the other messages. Lengths count code points, as the databases
 * do. Everything accepted is stored and answered exactly as sent. JSON-string fields whose JSON
 * text spells a lone surrogate as an escape (`{"a":"\\ud800"}`, all ASCII) are valid JSON text
 * and are stored byte for byte.
 */
describe('text that is not well-formed Unicode', () => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await startApp();
    token = await login(t);
  });
  afterAll(() => t.close());

  /** Sends JSON text as it is (its `\uXXXX` escapes reach the parser as escapes). */
  const raw = (method: 'post' | 'put', path: string, text: string | Buffer, auth: string | undefined = token) => {
    const req = t.http[method](path).set('Accept', 'application/json').set('Content-Type', 'application/json');
    if (auth) req.set('Authorization', auth);
    return req.serialize((body: unknown) => body as string).send(text);
  };
  const api = {
    get: (path: string, query: Record<string, string> = {}) =>
      t.http.get(path).query(query).set('Authorization', token).set('Accept', 'application/json'),
    post: (path: string, body: object) => t.http.post(path).set('Authorization', token).send(body),
  };
  const counts = () => tableCounts({ app: t.app, root: token, storageDir: '' });

  /** `JSON.stringify` writes a lone surrogate as a `\uXXXX` escape: the body is plain ASCII JSON text. */
  const json = (body: object) => JSON.stringify(body);

  const plan = (overrides: object = {}) => ({
    name: 'Spring',
    description: 'About',
    status: 'draft',
    start_date: '2026-03-01',
    end_date: '2026-05-31',
    budget: 10,
    goal: 'Grow',
    ...overrides,
  });

  const refusedOn = (res: Response, key: string, label: string) => {
    expect({ status: res.status, body: res.body }).toEqual({
      status: 422,
      body: {
        message: expect.stringContaining(label),
        errors: { [key]: [label] },
      },
    });
  };

  it('is a 422 on that field, nested fields by their dotted key, and nothing is written', async () => {
    const program = await created(api.post('/api/marketing-programs', plan()));
    const group = await created(api.post(`/api/marketing-programs/${program.id}/campaign-groups`, plan()));
    const customer = await created(api.post('/api/customers', { first_name: 'Ada' }));
    const cases: [string, 'post' | 'put', string, object, string, string][] = [
      [
        'program name',
        'post',
        '/api/marketing-programs',
        plan({ name: 'Spring \ud800' }),
        'name',
        'The name field must be valid Unicode text.',
      ],
      [
        'program description',
        'post',
        '/api/marketing-programs',
        plan({ description: '\udc00' }),
        'description',
        'The description field must be valid Unicode text.',
      ],
      [
        'program goal',
        'put',
        `/api/marketing-programs/${program.id}`,
        plan({ goal: 'a\ud83d' }),
        'goal',
        'The goal field must be valid Unicode text.',
      ],
      [
        'campaign JSON string',
        'post',
        `/api/campaign-groups/${group.id}/campaigns`,
        plan({ target_audience: '{"a":"\ud800"}' }),
        'target_audience',
        'The target audience field must be valid Unicode text.',
      ],
      [
        'customer first name',
        'post',
        '/api/customers',
        { first_name: '\ude00\ud83d' },
        'first_name',
        'The first name field must be valid Unicode text.',
      ],
      [
        'customer e-mail',
        'put',
        `/api/customers/${customer.id}`,
        { email: 'ada\ud800@example.com' },
        'email',
        'The email field must be valid Unicode text.',
      ],
      [
        'customer attributes',
        'post',
        '/api/customers',
        { attributes: '"\udfff"' },
        'attributes',
        'The attributes field must be valid Unicode text.',
      ],
      [
        'audience rule value',
        'post',
        '/api/audiences',
        {
          name: 'Buyers',
          rules: [
            { rule_type: 'country', rule_value: 'NL' },
            { rule_type: 'country', rule_value: '\ud800' },
          ],
        },
        'rules.1.rule_value',
        'The rule value field must be valid Unicode text.',
      ],
      [
        'user roles',
        'post',
        '/api/admin/users',
        { name: 'Ada', email: 'ada-roles@example.com', password: 'long-enough-password', roles: ['viewer', '\udbff'] },
        'roles',
        'Each item of the roles field must be valid Unicode text.',
      ],
      [
        'mail subject',
        'post',
        '/api/send-email',
        { to: 'ada@example.com', subject: 'Report \ud800', content: '<p>Hi</p>' },
        'subject',
        'The subject field must be valid Unicode text.',
      ],
      [
        'destination connection details',
        'post',
        '/api/destinations',
        { name: 'ESP', destination_type: 'email', connection_details: '{"k":"\ud800"}' },
        'connection_details',
        'The connection details field must be valid Unicode text.',
      ],
    ];
    for (const [what, method, path, body, key, message] of cases) {
      const before = await counts();
      const customerBefore = await dataOf(api.get(`/api/customers/${customer.id}`));
      const programBefore = await dataOf(api.get(`/api/marketing-programs/${program.id}`));
      const res = await raw(method, path, json(body));
      expect({ what, escaped: /\\ud[89a-f]/.test(json(body)) }).toEqual({ what, escaped: true });
      expect({ what, status: res.status, errors: res.body.errors }).toEqual({
        what,
        status: 422,
        errors: { [key]: [message] },
      });
      expect({ what, counts: await counts() }).toEqual({ what, counts: before });
      expect(await dataOf(api.get(`/api/customers/${customer.id}`))).toEqual(customerBefore);
      expect(await dataOf(api.get(`/api/marketing-programs/${program.id}`))).toEqual(programBefore);
    }
  });

  it('is a 422 on the e-mail of login, forgot-password and reset-password (it was a 500)', async () => {
    const email = 'ad\ud800a@example.com';
    for (const [path, body] of [
      ['/api/login', { email, password: 'whatever-password', device_name: 'd' }],
      ['/api/forgot-password', { email }],
      ['/api/reset-password', { email, token: 'x'.repeat(40), password: 'new-password-123' }],
    ] as const) {
      refusedOn(await raw('post', path, json(body), undefined), 'email', 'The email field must be valid Unicode text.');
    }
  });

  it('stores and answers every well-formed text exactly as sent', async () => {
    const texts = [
      '😀 astral',
      '👩‍👩‍👧‍👦 ZWJ family',
      '❤️ emoji presentation',
      'e\u0301 combining, a\u0308\u0323 two marks',
      '\u202eRTL override\u202c שלום مرحبا',
      'zero\u200bwidth\u200d\ufeff',
      '\ufffd replacement, \uffff noncharacter, \u{10ffff} last',
      'NUL \u0000 and controls \u0001\u001f\u007f',
      '😀'.repeat(255),
      'x\ufe0f'.repeat(127) + 'x', // 255 code points, 128 "characters" to validator.js
    ];
    for (const text of texts) {
      const name = [...text].slice(0, 255).join('');
      const customer = await created(
        raw(
          'post',
          '/api/customers',
          json({ first_name: name, last_name: [...text].slice(0, 10).join(''), attributes: json({ text }) }),
        ),
      );
      const stored = await dataOf(api.get(`/api/customers/${customer.id}`));
      expect({ sent: name, stored: stored.first_name, attributes: stored.attributes }).toEqual({
        sent: name,
        stored: name,
        attributes: json({ text }),
      });
      const program = await created(
        raw('post', '/api/marketing-programs', json(plan({ name, description: text, goal: name }))),
      );
      const read = await dataOf(api.get(`/api/marketing-programs/${program.id}`));
      expect([read.name, read.description, read.goal]).toEqual([name, text, name]);
    }
  });

  it('counts lengths in code points: 256 of them is a 422 even when validator.js would count 128', async () => {
    for (const text of ['x\ufe0f'.repeat(128), '😀'.repeat(256), 'e\u0301'.repeat(128)]) {
      const before = await counts();
      refusedOn(
        await raw('post', '/api/customers', json({ first_name: text })),
        'first_name',
        'The first name field must not be greater than 255 characters.',
      );
      expect(await counts()).toEqual(before);
    }
  });

  it('takes JSON-string fields whose JSON text escapes a lone surrogate, byte for byte', async () => {
    // Valid JSON text (RFC 8259 grammar), all ASCII: stored and answered exactly as sent.
    const texts = ['{"a":"\\ud800"}', '["\\udfff\\ud800"]', '{"\\udc00" : 1 }'];
    const campaign: Row = await newCampaign(client(t, token));
    for (const text of texts) {
      const customer = await created(raw('post', '/api/customers', json({ attributes: text })));
      expect((await dataOf(api.get(`/api/customers/${customer.id}`))).attributes).toBe(text);
      const destination = await created(
        raw('post', '/api/destinations', json({ name: 'ESP', destination_type: 'email', connection_details: text })),
      );
      expect((await dataOf(api.get(`/api/destinations/${destination.id}`))).connection_details).toBe(text);
      const updated = await dataOf(raw('put', `/api/campaigns/${campaign.id}`, json(plan({ target_audience: text }))));
      expect(updated.target_audience).toBe(text);
      expect((await dataOf(api.get(`/api/campaigns/${campaign.id}`))).target_audience).toBe(text);
    }
  });

  it('answers 400 to a body that is not UTF-8, and writes nothing', async () => {
    const before = await counts();
    for (const bytes of [
      [0xff, 0xfe], // never UTF-8
      [0xed, 0xa0, 0x80], // a surrogate encoded as if it were a character (CESU-8)
      [0xc3], // a truncated sequence
      [0xc0, 0xaf], // an overlong encoding of "/"
    ]) {
      const body = Buffer.concat([Buffer.from('{"first_name":"Ada'), Buffer.from(bytes), Buffer.from('"}')]);
      const res = await raw('post', '/api/customers', body);
      expect({ bytes, status: res.status, body: res.body }).toEqual({
        bytes,
        status: 400,
        body: { message: 'The request body is not valid UTF-8.' },
      });
    }
    expect(await counts()).toEqual(before);
  });

  it('searches ?q= with any well-formed text; undecodable percent-escapes are searched as the text they are', async () => {
    const marker = `Q${Date.now().toString(36)}`;
    const customer = await created(raw('post', '/api/customers', json({ first_name: `Zoë 🦩 \u202e${marker}` })));
    for (const q of [`🦩 \u202e${marker}`, `Zoë 🦩`, `\u202e${marker}`, marker]) {
      const res = await api.get('/api/customers', { q });
      expect({ q, status: res.status, ids: (res.body.data as Row[]).map((r) => r.id) }).toEqual({
        q,
        status: 200,
        ids: [customer.id],
      });
    }
    // A query string cannot carry a lone surrogate: URLs are percent-encoded UTF-8, and the query
    // parser keeps an escape that does not decode (%ED%A0%80, %FF) as literal text.
    for (const q of ['%ED%A0%80', '%FF', '%F0%9F%98']) {
      const res = await t.http.get(`/api/customers?q=${q}`).set('Authorization', token);
      expect({ q, status: res.status, data: res.body.data }).toEqual({ q, status: 200, data: [] });
    }
  });
});
