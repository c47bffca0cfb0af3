import { isMailAddress, isWebhookSecret, readConnectionDetails } from './destination-config.js';

const fields = (type: string, details: unknown) => readConnectionDetails(type, details).problems.map((p) => p.field);

describe('readConnectionDetails', () => {
  it('names the types it delivers to for any other type', () => {
    const reading = readConnectionDetails('kafka', { url: 'x' });
    expect(reading.config).toBeUndefined();
    expect(reading.problems).toEqual([
      { field: 'destination_type', message: expect.stringContaining('webhook, email, amqp, file') },
    ]);
  });

  it('wants an object, not nested too deep', () => {
    expect(fields('webhook', [])).toEqual(['connection_details']);
    expect(fields('webhook', 'x')).toEqual(['connection_details']);
    let deep: unknown = {};
    for (let i = 0; i < 40; i++) deep = { a: deep };
    expect(fields('webhook', deep)).toEqual(['connection_details']);
  });

  it('reads a webhook with its defaults, and every key with its rule', () => {
    expect(readConnectionDetails('webhook', { url: 'https://hooks.example.com/in' })).toEqual({
      config: {
        type: 'webhook',
        url: 'https://hooks.example.com/in',
        method: 'POST',
        headers: {},
        batchSize: 100,
        ratePerSecond: 10,
        concurrency: 2,
        timeoutMs: 15_000,
        secret: undefined,
      },
      problems: [],
      targets: [{ field: 'connection_details.url', url: 'https://hooks.example.com/in' }],
    });
    const full = readConnectionDetails('webhook', {
      url: 'http://h.example/x',
      method: 'PUT',
      headers: { 'X-Team': 'growth', Authorization: 'Bearer t' },
      batch_size: 1000,
      rate_per_second: 0.5,
      concurrency: 16,
      timeout_ms: 2500,
      secret: `whsec_${Buffer.alloc(32, 1).toString('base64')}`,
    });
    expect(full.problems).toEqual([]);
    expect(full.config).toMatchObject({ method: 'PUT', headers: { 'x-team': 'growth', authorization: 'Bearer t' } });
    expect(
      fields('webhook', {
        url: 'ftp://h.example',
        method: 'GET',
        headers: { 'Content-Type': 'x', 'bad name': 'x', ok: 1, line: 'a\r\nb' },
        batch_size: 0,
        rate_per_second: 0,
        concurrency: 17,
        timeout_ms: 1.5,
        secret: 'not-a-secret',
      }),
    ).toEqual([
      'connection_details.url',
      'connection_details.secret',
      'connection_details.method',
      'connection_details.headers.Content-Type',
      'connection_details.headers.bad name',
      'connection_details.headers.ok',
      'connection_details.headers.line',
      'connection_details.batch_size',
      'connection_details.rate_per_second',
      'connection_details.concurrency',
      'connection_details.timeout_ms',
    ]);
    expect(fields('webhook', {})).toEqual(['connection_details.url']);
    expect(fields('webhook', { url: 'not a url' })).toEqual(['connection_details.url']);
  });

  it('reads an e-mail destination, its templates parsed, and names what is wrong', () => {
    const reading = readConnectionDetails('email', {
      from: 'News <news@example.com>',
      subject: 'Hello {{ first_name }}',
      html: '<p>{{ first_name }}</p>',
    });
    expect(reading.problems).toEqual([]);
    expect(reading.config).toMatchObject({ type: 'email', ratePerSecond: 10, batchSize: 10, text: null });
    expect(reading.targets).toEqual([]);
    expect(
      fields('email', {
        from: 'nobody',
        reply_to: 'a@b\r\nBcc: x@y',
        list_id: 'a\nb',
        html: '{% if %}',
        subject: '{{ x | nofilter }}',
        smtp_url: 'http://mail.example.com',
        rate_per_second: 'fast',
      }),
    ).toEqual([
      'connection_details.from',
      'connection_details.reply_to',
      'connection_details.list_id',
      'connection_details.html',
      'connection_details.smtp_url',
      'connection_details.subject',
      'connection_details.rate_per_second',
    ]);
    expect(fields('email', { from: 'a@b.example' })).toEqual(['connection_details.html']);
    expect(
      readConnectionDetails('email', { from: 'a@b.example', text: 'x', smtp_url: 'smtp://m.example:25' }).targets,
    ).toEqual([{ field: 'connection_details.smtp_url', url: 'smtp://m.example:25' }]);
  });

  it('reads an AMQP destination', () => {
    const reading = readConnectionDetails('amqp', {
      url: 'amqps://u:p@broker.example.com/vhost',
      exchange: 'campaigns',
      routing_key: 'campaign.{{ action }}',
      queue: 'crm-in',
    });
    expect(reading.problems).toEqual([]);
    expect(reading.config).toMatchObject({ exchange: 'campaigns', queue: 'crm-in', bindingKey: '#', batchSize: 100 });
    expect(fields('amqp', { url: 'amqp://b.example', exchange: '', queue: 'q' })).toEqual(['connection_details.queue']);
    expect(fields('amqp', { url: 'https://b.example', routing_key: '{% for %}' })).toEqual([
      'connection_details.url',
      'connection_details.exchange',
      'connection_details.routing_key',
    ]);
  });

  it('reads a file destination', () => {
    expect(readConnectionDetails('file', { format: 'ndjson', mode: 'changes' }).config).toEqual({
      type: 'file',
      format: 'ndjson',
      mode: 'changes',
      batchSize: 10_000,
    });
    expect(fields('file', { format: 'xml', mode: 'some' })).toEqual([
      'connection_details.format',
      'connection_details.mode',
    ]);
    expect(fields('file', {})).toEqual(['connection_details.format']);
  });
});

describe('addresses and secrets', () => {
  it.each([
    ['a@b.example', true],
    ['Ada <ada@b.example>', true],
    ['"Ada, L." <ada@b.example>', true],
    ['ada', false],
    ['a@b.example\r\nBcc: c@d', false],
    ['<a@b.example', false],
  ])('%j is a mail address: %s', (value, ok) => expect(isMailAddress(value)).toBe(ok));

  it('knows a Standard Webhooks secret', () => {
    expect(isWebhookSecret(`whsec_${Buffer.alloc(24).toString('base64')}`)).toBe(true);
    expect(isWebhookSecret(`whsec_${Buffer.alloc(16).toString('base64')}`)).toBe(false);
    expect(isWebhookSecret('whsec_not base64')).toBe(false);
  });
});
