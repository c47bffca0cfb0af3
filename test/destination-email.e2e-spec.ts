import { createHash, generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { login } from './support/auth.js';
import {
  client,
  created,
  dataOf,
  newCampaign,
  newWorkspace,
  type Client,
  type Workspace,
} from './support/campaign-fixtures.js';
import { newUser } from './support/factories.js';
import {
  type Any,
  eventually,
  newDeliveryDestination,
  queueRecords,
  startDeliveryApp,
  testSend,
  unique,
} from './support/destination-fixtures.js';
import { SmtpCapture, type CapturedMail } from './support/smtp-capture.js';
import { freshDatabaseUrl } from './support/test-database.js';
import request from 'supertest';
import { createApp } from '../src/app.factory.js';
import { loadConfig } from '../src/common/config/app-config.js';
import { UnsubscribeTokens } from '../src/modules/customer/unsubscribe/unsubscribe-tokens.js';
import { systemAuth } from '../src/common/auth/auth-context.js';
import { Tables } from '../src/common/persistence/tables.js';
import { Customer } from '../src/modules/customer/entities/customer.entity.js';
import { readConnectionDetails } from '../src/modules/destination/config/destination-config.js';
import { DestinationSenders } from '../src/modules/destination/delivery/destination-senders.js';
import { RecordPreparer } from '../src/modules/destination/delivery/record-preparer.js';
import { Destination } from '../src/modules/destination/entities/destination.entity.js';
import { compileMapping } from '../src/modules/destination/mapping/attribute-mapping.js';
import { DestinationSecrets } from '../src/modules/destination/secrets/destination-secrets.js';
import type { TestApp } from './support/test-app.js';

/** A header of the message as sent (unfolded). */
const header = (mail: CapturedMail | Buffer, name: string): string | undefined => {
  const raw = (Buffer.isBuffer(mail) ? mail : mail.raw)
    .toString()
    .split(/\r?\n\r?\n/)[0]
    .replace(/\r?\n[ \t]+/g, ' ');
  const line = raw.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
};

/** The path of the message's one-click link (APP_URL/api/unsubscribe/TOKEN). */
const unsubscribePath = (mail: CapturedMail) =>
  /<https?:\/\/[^/]+(\/api\/unsubscribe\/[^>]+)>/.exec(mail.raw.toString())![1];

/** A DKIM-Signature (rsa-sha256, relaxed/relaxed) checked as a receiver checks it (RFC 6376 §3.4.2, §3.4.4). */
function dkimVerifies(raw: Buffer, publicKey: KeyObject): boolean {
  const text = raw.toString();
  const split = text.indexOf('\r\n\r\n');
  const head = text.slice(0, split + 2);
  const body = text.slice(split + 4);
  const fields = head.split(/\r\n(?![ \t])/).filter(Boolean);
  const relaxed = (field: string) => {
    const colon = field.indexOf(':');
    const name = field.slice(0, colon).trim().toLowerCase();
    const value = field
      .slice(colon + 1)
      .replace(/\r\n/g, '')
      .replace(/[ \t]+/g, ' ')
      .trim();
    return `${name}:${value}`;
  };
  const signatureField = fields.find((f) => /^dkim-signature:/i.test(f))!;
  const tags = Object.fromEntries(
    relaxed(signatureField)
      .slice('dkim-signature:'.length)
      .split(';')
      .map((tag) => {
        const at = tag.indexOf('=');
        return [tag.slice(0, at).trim(), tag.slice(at + 1).replace(/\s+/g, '')];
      }),
  );
  let canonicalBody = body
    .split('\r\n')
    .map((line) => line.replace(/[ \t]+/g, ' ').replace(/ $/, ''))
    .join('\r\n')
    .replace(/(\r\n)*$/, '');
  if (canonicalBody) canonicalBody += '\r\n';
  if (createHash('sha256').update(canonicalBody).digest('base64') !== tags.bh) return false;
  const used = new Map<string, number>();
  const signed = tags.h.split(':').map((name: string) => {
    const matching = fields.filter((f) => f.toLowerCase().startsWith(`${name.toLowerCase()}:`));
    const n = (used.get(name.toLowerCase()) ?? 0) + 1;
    used.set(name.toLowerCase(), n);
    const field = matching[matching.length - n];
    return field ? `${relaxed(field)}\r\n` : '';
  });
  const unsigned = relaxed(signatureField)
    .replace(/b=[^;]*$/, 'b=')
    .replace(/b=[^;]*;/, 'b=;');
  return verify('sha256', Buffer.from(signed.join('') + unsigned), publicKey, Buffer.from(tags.b, 'base64'));
}

describe('email destinations (docs/destinations/email.md)', () => {
  let smtp: SmtpCapture;
  let t: TestApp;
  let root: string;
  let w: Workspace;
  let api: Client;
  let ada: Any;
  let campaign: Any;

  const details = (extra: Record<string, unknown> = {}) => ({
    from: 'News <news@example.com>',
    reply_to: 'help@example.com',
    subject: 'Hello {{ first_name }} & {{ campaign.name }}',
    html: '<p>Hi {{ first_name }}</p>{{ banner | raw }}<a href="{{ unsubscribe_url }}">unsubscribe</a>',
    text: 'Hi {{ first_name }}, {{ customer.attributes.tier }}. Unsubscribe: {{ unsubscribe_url }}',
    smtp_url: smtp.url,
    list_id: 'spring.news.example.com',
    ...extra,
  });

  /** An email destination and its association with the campaign (the mapping names the recipient). */
  async function emailLink(extra: Record<string, unknown> = {}, mapping: Record<string, unknown> = {}) {
    const destination = await newDeliveryDestination(api, 'email', details(extra));
    const link = await created(
      api.post(`/api/campaigns/${campaign.id}/destinations`, {
        destination_id: destination.id,
        attribute_mapping: JSON.stringify({
          email: 'email',
          first_name: 'first_name',
          banner: { value: '<b>Spring sale</b>' },
          ...mapping,
        }),
      }),
    );
    return { destination, link };
  }

  beforeAll(async () => {
    smtp = await new SmtpCapture({
      onRcptTo: (address, _session, callback) => {
        if (address.address.startsWith('bounce')) {
          callback(Object.assign(new Error('5.1.1 No such user'), { responseCode: 550 }));
        } else if (address.address.startsWith('later')) {
          callback(Object.assign(new Error('4.2.0 Try again later'), { responseCode: 451 }));
        } else callback();
      },
    }).start();
    t = await startDeliveryApp();
    root = await login(t);
    w = await newWorkspace(t, root);
    api = w.manager;
    campaign = await newCampaign(api, { name: `Spring ${unique()}` });
    ada = await created(
      api.post('/api/customers', { email: 'ada@example.com', first_name: '<Ada>', attributes: '{"tier":"gold"}' }),
    );
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });

  describe('testDestination: POST /api/destinations/{id}/test (email)', () => {
    it('sends one message with the one-click unsubscribe headers, List-Id, a Message-ID of the record and escaped HTML', async () => {
      const { destination, link } = await emailLink();
      expect(link).toMatchObject({ deliverable: true, problems: [] });
      const { status, body } = await testSend(api, destination.id, {
        campaign_destination_id: link.id,
        customer_id: ada.id,
      });
      expect(status).toBe(200);
      expect(body.data).toEqual({
        delivered: true,
        status: 250,
        duration_ms: expect.any(Number),
        answer: expect.stringMatching(/^250/),
      });
      const mail = smtp.last();
      expect(mail.envelopeTo).toEqual(['ada@example.com']);
      expect(mail.envelopeFrom).toBe('news@example.com');
      expect(mail.parsed.subject).toBe(`Hello <Ada> & ${campaign.name}`);
      expect(mail.parsed.html).toContain('<p>Hi &lt;Ada&gt;</p><b>Spring sale</b>');
      expect(mail.parsed.text).toContain('Hi <Ada>, gold.');
      expect(mail.parsed.replyTo?.text).toBe('help@example.com');
      expect(header(mail, 'List-Unsubscribe')).toMatch(
        /^<http:\/\/localhost:3000\/api\/unsubscribe\/\d+\.\d+\.[\w-]{12}\.[\w-]{22}>$/,
      );
      expect(header(mail, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
      expect(header(mail, 'List-Id')).toBe('<spring.news.example.com>');
      expect(mail.parsed.messageId).toMatch(/^<test_[\w-]+@example\.com>$/);
      // The link in the body is the header's.
      expect(mail.parsed.text).toContain(`http://localhost:3000${unsubscribePath(mail)}`);
      expect(mail.raw.toString()).not.toMatch(/DKIM-Signature/i);
    });

    it("answers the SMTP server's refusal of the recipient, and a server that is down", async () => {
      const { destination, link } = await emailLink();
      const bounce = await created(api.post('/api/customers', { email: `bounce-${unique()}@example.com` }));
      const refused = await testSend(api, destination.id, { campaign_destination_id: link.id, customer_id: bounce.id });
      expect(refused.body.data).toMatchObject({
        delivered: false,
        status: 550,
        answer: expect.stringContaining('No such user'),
      });

      const down = await emailLink({ smtp_url: 'smtp://127.0.0.1:9' });
      const unreachable = await testSend(api, down.destination.id, {
        campaign_destination_id: down.link.id,
        customer_id: ada.id,
      });
      expect(unreachable.body.data).toMatchObject({
        delivered: false,
        status: null,
        answer: expect.stringContaining('ECONNREFUSED'),
      });
    });

    it('refuses a customer without an address and an email destination without an association (422)', async () => {
      const { destination, link } = await emailLink();
      const nobody = await created(api.post('/api/customers', { first_name: 'No address' }));
      const missing = await testSend(api, destination.id, { campaign_destination_id: link.id, customer_id: nobody.id });
      expect(missing.status).toBe(422);
      expect(missing.body.errors).toEqual({ customer_id: [expect.stringContaining('no e-mail address')] });
      const alone = await testSend(api, destination.id, { customer_id: ada.id });
      expect(alone.status).toBe(422);
      expect(Object.keys(alone.body.errors)).toEqual(['campaign_destination_id']);
    });
  });

  describe('createDestination, addCampaignDestination, testDestination: problems of email connection details', () => {
    it('reports each bad key, a template that does not parse on its key, and a mapping without email', async () => {
      const destination = await newDeliveryDestination(api, 'email', {
        subject: '{{ first_name | nosuchfilter }}',
        html: '{% if %}',
        smtp_url: 'http://mail.example.com',
        reply_to: 'not an address',
      });
      expect((destination.problems as Any[]).map((p) => p.field)).toEqual([
        'connection_details.from',
        'connection_details.reply_to',
        'connection_details.html',
        'connection_details.smtp_url',
        'connection_details.subject',
      ]);
      expect((destination.problems as Any[])[2].message).toMatch(/^The template does not parse/);
      const ok = await newDeliveryDestination(api, 'email', details());
      const link = await created(
        api.post(`/api/campaigns/${campaign.id}/destinations`, {
          destination_id: ok.id,
          attribute_mapping: '{"mail": "email"}',
        }),
      );
      expect(link.problems).toEqual([
        { field: 'attribute_mapping.email', message: expect.stringContaining('"email" target') },
      ]);
      const refused = await testSend(api, ok.id, { campaign_destination_id: link.id });
      expect(refused.status).toBe(422);
      expect(Object.keys(refused.body.errors)).toEqual(['attribute_mapping.email']);
    });
  });

  describe('showUnsubscribePage, unsubscribe: GET and POST /api/unsubscribe/{token}', () => {
    it('shows a page that unsubscribes nobody; its POST unsubscribes at once, recorded in the change feed; later e-mail leaves the customer out', async () => {
      const { destination, link } = await emailLink();
      const customer = await created(
        api.post('/api/customers', { email: `grace-${unique()}@example.com`, first_name: 'Grace' }),
      );
      await testSend(api, destination.id, { campaign_destination_id: link.id, customer_id: customer.id });
      const path = unsubscribePath(smtp.last());

      // Mail scanners fetch links: the page changes nothing.
      const page = await t.http.get(path);
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['content-security-policy']).toContain("default-src 'none'");
      expect(page.text).toContain('<form method="post">');
      expect((await dataOf(api.get(`/api/customers/${customer.id}`))).unsubscribed_at).toBeNull();

      // RFC 8058: a form POST of List-Unsubscribe=One-Click, answered 200 without a redirect.
      const post = await t.http
        .post(path)
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .send('List-Unsubscribe=One-Click');
      expect(post.status).toBe(200);
      expect(post.body).toEqual({ code: 200, message: 'Unsubscribed.', data: { unsubscribed: true } });
      const unsubscribed = await dataOf(api.get(`/api/customers/${customer.id}`));
      expect(unsubscribed.unsubscribed_at).toEqual(expect.stringMatching(/Z$/));
      // Again: nothing changes.
      expect((await t.http.post(path).send('')).status).toBe(200);
      expect((await dataOf(api.get(`/api/customers/${customer.id}`))).unsubscribed_at).toBe(
        unsubscribed.unsubscribed_at,
      );

      const admin = client(t, (await newUser(t, root, ['admin'], w.tenantId)).token);
      const events = await dataOf(admin.get('/api/events', { types: 'customer.updated', limit: 100 }));
      const event = (events as Any[]).find((e) => e.resource_id === customer.id);
      expect(event).toMatchObject({
        changes: ['unsubscribed_at'],
        data: { unsubscribed_at: unsubscribed.unsubscribed_at },
        causer: null,
      });

      // Left out of every later e-mail: a test send refuses it, a run's preparation skips it.
      const refused = await testSend(api, destination.id, {
        campaign_destination_id: link.id,
        customer_id: customer.id,
      });
      expect(refused.status).toBe(422);
      expect(refused.body.errors).toEqual({ customer_id: [expect.stringContaining('unsubscribed')] });
      const { skipped } = await queueRecords(t, w.tenantId, destination.id, [customer.id, ada.id], {
        campaignDestinationId: link.id,
      });
      expect(skipped).toEqual([{ customer_id: customer.id, reason: 'unsubscribed' }]);
    });

    it('answers a browser with a page', async () => {
      const { destination, link } = await emailLink();
      const customer = await created(api.post('/api/customers', { email: `lin-${unique()}@example.com` }));
      await testSend(api, destination.id, { campaign_destination_id: link.id, customer_id: customer.id });
      const res = await t.http
        .post(unsubscribePath(smtp.last()))
        .set('Accept', 'text/html,application/xhtml+xml')
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .send('List-Unsubscribe=One-Click');
      expect(res.status).toBe(200);
      expect(res.text).toContain('You are unsubscribed');
    });

    it('answers 404 for a token that is not genuine, on both routes', async () => {
      const { destination, link } = await emailLink();
      await testSend(api, destination.id, { campaign_destination_id: link.id, customer_id: ada.id });
      const genuine = unsubscribePath(smtp.last()).split('/').pop()!;
      const [tenant, customer, address, mac] = genuine.split('.');
      const forged = [
        `${tenant}.${Number(customer) + 1}.${address}.${mac}`,
        `${Number(tenant) + 1}.${customer}.${address}.${mac}`,
        `${tenant}.${customer}.${address}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`,
        'abc',
        `${genuine}.x`,
      ];
      for (const token of forged) {
        expect({ token, get: (await t.http.get(`/api/unsubscribe/${token}`)).status }).toEqual({ token, get: 404 });
        const post = await t.http
          .post(`/api/unsubscribe/${token}`)
          .set('Content-Type', 'application/x-www-form-urlencoded')
          .send('x=1');
        expect({ token, post: post.status }).toEqual({ token, post: 404 });
      }
      expect((await dataOf(api.get(`/api/customers/${ada.id}`))).unsubscribed_at).toBeNull();
    });
  });

  describe('resubscribeCustomer: DELETE /api/customers/{id}/unsubscribe', () => {
    it('resubscribes (customers.manage), 404 for another tenant, 403 for a viewer', async () => {
      const { destination, link } = await emailLink();
      const customer = await created(api.post('/api/customers', { email: `kay-${unique()}@example.com` }));
      await testSend(api, destination.id, { campaign_destination_id: link.id, customer_id: customer.id });
      await t.http.post(unsubscribePath(smtp.last()));
      expect((await dataOf(api.get(`/api/customers/${customer.id}`))).unsubscribed_at).not.toBeNull();

      const other = await newWorkspace(t, root);
      expect((await other.manager.delete(`/api/customers/${customer.id}/unsubscribe`)).status).toBe(404);
      expect((await w.viewer.delete(`/api/customers/${customer.id}/unsubscribe`)).status).toBe(403);
      for (const id of ['999999999', 'abc'])
        expect((await api.delete(`/api/customers/${id}/unsubscribe`)).status).toBe(404);

      const res = await api.delete(`/api/customers/${customer.id}/unsubscribe`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ code: 200, message: expect.any(String), data: null });
      expect((await dataOf(api.get(`/api/customers/${customer.id}`))).unsubscribed_at).toBeNull();
      expect(
        (await testSend(api, destination.id, { campaign_destination_id: link.id, customer_id: customer.id })).body.data,
      ).toMatchObject({
        delivered: true,
      });
    });
  });

  describe('the lane: e-mail batches', () => {
    it('sends one message a record, skips who has no address, and leaves a 4xx pending for a retry', async () => {
      const { destination, link } = await emailLink({ subject: 'Batch {{ email }}' });
      const people = [];
      for (const name of ['b1', 'b2', `later-${unique()}`]) {
        people.push(await created(api.post('/api/customers', { email: `${name}@example.com` })));
      }
      const nobody = await created(api.post('/api/customers', { first_name: 'None' }));
      const before = smtp.messages.length;
      const { skipped, records } = await queueRecords(
        t,
        w.tenantId,
        destination.id,
        [...people.map((p) => p.id as number), nobody.id],
        { campaignDestinationId: link.id },
      );
      expect(skipped).toEqual([{ customer_id: nobody.id, reason: 'no_address' }]);
      expect(records).toHaveLength(3);
      await eventually(async () => (smtp.messages.length >= before + 2 ? true : undefined));
      const sent = smtp.messages.slice(before).map((m) => m.envelopeTo[0]);
      expect(sent).toEqual(['b1@example.com', 'b2@example.com']);
      const failing = await eventually(async () => {
        const read = await dataOf(api.get(`/api/destinations/${destination.id}`));
        return (read.consecutive_failures as number) >= 1 ? read : undefined;
      });
      expect(failing.last_error).toContain('451');
      // Retried: the two delivered are not sent again.
      await eventually(async () => {
        const read = await dataOf(api.get(`/api/destinations/${destination.id}`));
        return (read.consecutive_failures as number) >= 2 ? read : undefined;
      });
      expect(smtp.messages.slice(before).map((m) => m.envelopeTo[0])).toEqual(['b1@example.com', 'b2@example.com']);
    });
  });

  describe('testDestination: POST /api/destinations/{id}/test, the transports beside smtp_url', () => {
    let other: TestApp;
    afterEach(async () => {
      await other?.close();
    });

    it('writes an .eml file when neither smtp_url nor MAIL_URL is set', async () => {
      other = await startDeliveryApp();
      const o = await newWorkspace(other, await login(other));
      const customer = await created(o.manager.post('/api/customers', { email: 'eml@example.com' }));
      const c = await newCampaign(o.manager);
      const destination = await newDeliveryDestination(o.manager, 'email', {
        from: 'a@example.com',
        text: 'Hi',
        subject: 'File',
      });
      const link = await created(
        o.manager.post(`/api/campaigns/${c.id}/destinations`, {
          destination_id: destination.id,
          attribute_mapping: '{"email":"email"}',
        }),
      );
      const { body } = await testSend(o.manager, destination.id, {
        campaign_destination_id: link.id,
        customer_id: customer.id,
      });
      expect(body.data).toMatchObject({ delivered: true, status: 'written' });
      const folder = join(other.config.storageDir, 'mail');
      const [file] = readdirSync(folder);
      const raw = readFileSync(join(folder, file));
      expect(header(raw, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
      expect(header(raw, 'List-Unsubscribe')).toMatch(/^<http:\/\/localhost:3000\/api\/unsubscribe\//);
      expect((await simpleParser(raw)).subject).toBe('File');
    });

    it("sends through the service's MAIL_URL without smtp_url, and signs with DKIM when DKIM_* is set", async () => {
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      other = await startDeliveryApp({
        env: {
          MAIL_URL: smtp.url,
          DKIM_DOMAIN: 'mail.example.com',
          DKIM_SELECTOR: 's2026',
          DKIM_PRIVATE_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString().replace(/\n/g, '\\n'),
        },
      });
      const o = await newWorkspace(other, await login(other));
      const customer = await created(o.manager.post('/api/customers', { email: 'dkim@example.com' }));
      const c = await newCampaign(o.manager);
      const destination = await newDeliveryDestination(o.manager, 'email', {
        from: 'a@example.com',
        subject: 'Signed',
        html: '<p>Hi</p>',
      });
      const link = await created(
        o.manager.post(`/api/campaigns/${c.id}/destinations`, {
          destination_id: destination.id,
          attribute_mapping: '{"email":"email"}',
        }),
      );
      const { body } = await testSend(o.manager, destination.id, {
        campaign_destination_id: link.id,
        customer_id: customer.id,
      });
      expect(body.data).toMatchObject({ delivered: true, status: 250 });
      const mail = smtp.last();
      expect(mail.envelopeTo).toEqual(['dkim@example.com']);
      const signature = header(mail, 'DKIM-Signature')!.replace(/\s+/g, '');
      expect(signature).toContain('d=mail.example.com');
      expect(signature).toContain('s=s2026');
      const signed = /(?:^|;)h=([^;]+)/.exec(signature)![1].toLowerCase().split(':');
      expect(signed).toEqual(
        expect.arrayContaining(['from', 'subject', 'message-id', 'list-unsubscribe', 'list-unsubscribe-post']),
      );
      expect(mail.parsed.messageId).toMatch(/@mail\.example\.com>$/);
      // The signature checks out with the public key (the receiver's check, relaxed/relaxed).
      expect(dkimVerifies(mail.raw, publicKey)).toBe(true);
      const tampered = Buffer.from(
        mail.raw.toString().replace('List-Unsubscribe-Post: List-Unsubscribe=One-Click', 'List-Unsubscribe-Post: x'),
      );
      expect(dkimVerifies(tampered, publicKey)).toBe(false);
    });
  });
  // Last: these start instances of their own, and passport's strategies are process-wide (the last
  // instance started authenticates every request of the process).
  describe('testDestination: POST /api/destinations/{id}/test, the address policy of smtp_url', () => {
    it('reports a private SMTP server as a problem unless allowed, and refuses it again at the connection', async () => {
      // A second instance over the same database whose operator allowed no private address; it delivers nothing.
      const closed = await startDeliveryApp({
        webhooks: { allowedHosts: '' },
        destinations: { worker: false },
        sharedWith: t,
      });
      try {
        const { destination, link } = await emailLink();
        const seen = await dataOf(client(closed, api.token).get(`/api/destinations/${destination.id}`));
        expect(seen.problems).toEqual([
          { field: 'connection_details.smtp_url', message: expect.stringContaining('must not be private or local') },
        ]);
        const refused = await testSend(client(closed, api.token), destination.id, { campaign_destination_id: link.id });
        expect(Object.keys(refused.body.errors)).toEqual(['connection_details.smtp_url']);

        // Sent through it anyway (as if the check had passed): the connection itself is refused.
        const row = (await closed.app
          .get(Tables)
          .read(systemAuth(w.tenantId, 'test'))
          .table(Destination)
          .findById(destination.id))!;
        const opened = closed.app.get(DestinationSecrets).open(row);
        const config = readConnectionDetails('email', opened.details).config!;
        const customer = (await closed.app
          .get(Tables)
          .read(systemAuth(w.tenantId, 'test'))
          .table(Customer)
          .findById(ada.id))!;
        const { records } = closed.app.get(RecordPreparer).prepare({
          tenantId: w.tenantId,
          destinationType: 'email',
          campaignDestinationId: link.id,
          mapping: compileMapping('{"email": "email"}').mapping!,
          campaign: null,
          recipients: [{ customer, treatment_group: null, action: 'add' }],
        });
        const before = smtp.messages.length;
        const result = await closed.app.get(DestinationSenders).send(row, config, opened.secrets, records, {
          tenantId: w.tenantId,
          destinationId: row.id,
          campaignDestinationId: link.id,
          campaignId: campaign.id,
          runId: null,
          batchId: 'b1',
        });
        expect(result).toMatchObject({ outcomes: [], transient: { error: expect.stringContaining('refused: ') } });
        expect(smtp.messages.length).toBe(before);
      } finally {
        await closed.close();
      }
    });
  });

  describe('showUnsubscribePage, unsubscribe: the token never reaches the log', () => {
    it('logs the route, not the path that carries the token', async () => {
      const db = await freshDatabaseUrl();
      const lines: Record<string, unknown>[] = [];
      const config = {
        ...loadConfig({ ...process.env, ...db.env, LOG_LEVEL: 'info' }),
        rateLimitKeyPrefix: `log-${unique()}:`,
      };
      const app = await createApp(config, {
        logDestination: { write: (line: string) => void lines.push(JSON.parse(line)) },
      });
      try {
        // Genuine, for a customer who does not exist: answered, and nothing changes.
        const token = app.get(UnsubscribeTokens).token(1, 999_999, 'gone@example.com');
        expect((await request(app.getHttpServer()).get(`/api/unsubscribe/${token}`)).status).toBe(200);
        expect((await request(app.getHttpServer()).post(`/api/unsubscribe/${token}`)).status).toBe(200);
        expect((await request(app.getHttpServer()).post(`/api/unsubscribe/${token}x`)).status).toBe(404);
        await eventually(async () => (lines.filter((l) => l.status).length >= 3 ? true : undefined));
        const logged = lines.filter((l) => typeof l.url === 'string' && String(l.url).includes('unsubscribe'));
        expect(logged.map((l) => [l.method, l.url, l.status])).toEqual([
          ['GET', '/api/unsubscribe/:token', 200],
          ['POST', '/api/unsubscribe/:token', 200],
          ['POST', '/api/unsubscribe/:token', 404],
        ]);
        expect(JSON.stringify(lines)).not.toContain(token);
      } finally {
        await app.close();
        await db.drop();
      }
    });
  });
});
