import type { AppConfig } from '../../../common/config/app-config.js';
import type { Customer } from '../../customer/entities/customer.entity.js';
import { UnsubscribeTokens } from '../../customer/unsubscribe/unsubscribe-tokens.js';
import { compileMapping } from '../mapping/attribute-mapping.js';
import { dataChecksum, messageIdOf, RecordPreparer, type PreparationInput } from './record-preparer.js';

const preparer = new RecordPreparer(
  new UnsubscribeTokens({
    destinationSecretKey: 'a destination key of 16+ characters',
    appUrl: 'https://app.example.com',
  } as AppConfig),
);

let ids = 0;
const customer = (values: Partial<Customer>): Customer => ({
  id: ++ids,
  tenant_id: 1,
  external_id: null,
  first_name: 'Ada',
  last_name: null,
  last_name_key: null,
  email: 'ada@example.com',
  phone: null,
  attributes: '{"work":"ada@work.example"}',
  is_active: true,
  unsubscribed_at: null,
  created_at: null,
  updated_at: null,
  ...values,
});

const input = (type: string, mapping: object, customers: Customer[]): PreparationInput => ({
  tenantId: 1,
  destinationType: type,
  campaignDestinationId: 9,
  mapping: compileMapping(JSON.stringify(mapping)).mapping!,
  campaign: { id: 3, name: 'Spring' },
  recipients: customers.map((c) => ({
    customer: c,
    treatment_group: { id: 4, name: 'A', type: 'treatment' },
    action: 'add',
  })),
});

describe('RecordPreparer', () => {
  it('maps each customer, with a stable message id and the scope its templates see', () => {
    const ada = customer({});
    const { records, skipped } = preparer.prepare(
      input('webhook', { email: 'email', group: 'treatment_group.name' }, [ada]),
    );
    expect(skipped).toEqual([]);
    expect(records[0]).toMatchObject({
      message_id: messageIdOf(1, 9, ada.id, { email: 'ada@example.com', group: 'A' }),
      action: 'add',
      customer_id: ada.id,
      treatment_group_id: 4,
      data: { email: 'ada@example.com', group: 'A' },
      scope: { campaign: { id: 3, name: 'Spring' }, customer: { attributes: { work: 'ada@work.example' } } },
    });
    expect(records[0].scope.unsubscribe_url).toMatch(/^https:\/\/app\.example\.com\/api\/unsubscribe\//);
    // The same data, the same id; other data, another.
    expect(
      preparer.prepare(input('webhook', { email: 'email', group: 'treatment_group.name' }, [ada])).records[0]
        .message_id,
    ).toBe(records[0].message_id);
    expect(messageIdOf(1, 9, ada.id, { email: 'x' })).not.toBe(records[0].message_id);
  });

  it('skips, on an e-mail destination only, the unsubscribed and those without an address', () => {
    const unsubscribed = customer({ unsubscribed_at: new Date() });
    const none = customer({ email: null });
    const bad = customer({ email: 'not an address' });
    const ok = customer({});
    const email = preparer.prepare(input('email', { email: 'email' }, [unsubscribed, none, bad, ok]));
    expect(email.skipped).toEqual([
      { customer_id: unsubscribed.id, reason: 'unsubscribed' },
      { customer_id: none.id, reason: 'no_address' },
      { customer_id: bad.id, reason: 'no_address' },
    ]);
    expect(email.records.map((r) => r.customer_id)).toEqual([ok.id]);
    const webhook = preparer.prepare(input('webhook', { email: 'email' }, [unsubscribed, none]));
    expect(webhook.skipped).toEqual([]);
    expect(webhook.records).toHaveLength(2);
  });

  it('sends e-mail to the mapped address, and names it in the unsubscribe link', () => {
    const ada = customer({});
    const { records } = preparer.prepare(input('email', { email: 'attributes.work' }, [ada]));
    expect(records[0].data.email).toBe('ada@work.example');
    const byWork = preparer.prepare(input('webhook', { email: 'attributes.work' }, [ada])).records[0].scope
      .unsubscribe_url;
    expect(records[0].scope.unsubscribe_url).not.toBe(byWork);
  });

  it('skips a customer whose template cannot render, with why', () => {
    const { skipped } = preparer.prepare(input('webhook', { t: { template: "{% include 'x' %}" } }, [customer({})]));
    expect(skipped).toEqual([
      { customer_id: ids, reason: 'mapping_failed', detail: expect.stringContaining('template') },
    ]);
  });

  it('checksums data regardless of key order', () => {
    expect(dataChecksum({ a: 1, b: { c: [1, 2], d: null } })).toBe(dataChecksum({ b: { d: null, c: [1, 2] }, a: 1 }));
    expect(dataChecksum({ a: 1 })).not.toBe(dataChecksum({ a: 2 }));
  });
});
