import type { OutboundHttp, SendResult } from '../../../../common/outbound/outbound-http.js';
import type { WebhookConfig } from '../../config/destination-config.js';
import type { Destination } from '../../entities/destination.entity.js';
import type { DestinationSecrets } from '../../secrets/destination-secrets.js';
import type { PreparedRecord } from '../delivery-record.js';
import { WebhookSender } from './webhook-sender.js';

const config: WebhookConfig = {
  type: 'webhook',
  url: 'https://hooks.example.com/in',
  method: 'POST',
  headers: {},
  batchSize: 100,
  ratePerSecond: 10,
  concurrency: 2,
  timeoutMs: 1000,
};

const record = (id: string): PreparedRecord => ({
  message_id: id,
  action: 'add',
  customer_id: 1,
  external_id: null,
  treatment_group_id: null,
  data: {},
  scope: {
    customer: {} as PreparedRecord['scope']['customer'],
    campaign: null,
    treatment_group: null,
    unsubscribe_url: null,
  },
});

/** The sender against a peer that answers `answer`, and what it was sent. */
function senderAnswering(answer: Omit<SendResult, 'durationMs'>) {
  const sent: { headers: Record<string, string>; body: string }[] = [];
  const http = {
    send: async (_url: string, headers: Record<string, string>, body: string) => {
      sent.push({ headers, body });
      return { ...answer, durationMs: 3 };
    },
  } as unknown as OutboundHttp;
  const secrets = {
    signingSecrets: () => [`whsec_${Buffer.alloc(24).toString('base64')}`],
  } as unknown as DestinationSecrets;
  const sender = new WebhookSender(http, secrets);
  const send = (records: PreparedRecord[]) =>
    sender.send(
      { destination: { id: 1 } as Destination, config, scrub: (text) => text.replace('s3cret', '********') },
      records,
      { tenantId: 1, destinationId: 1, campaignDestinationId: null, campaignId: null, runId: null, batchId: 'dlv_1' },
    );
  return { send, sent };
}

describe('WebhookSender: what an answer means', () => {
  it('delivers a batch a 2xx accepts, but the records its body rejects', async () => {
    const { send, sent } = senderAnswering({
      statusCode: 200,
      responseBody: JSON.stringify({ rejected: [{ message_id: 'b', reason: 'unknown' }, { message_id: 'zz' }, 'x'] }),
    });
    const result = await send([record('a'), record('b')]);
    expect(result.outcomes).toEqual([
      { message_id: 'a', status: 'delivered' },
      { message_id: 'b', status: 'rejected', reason: 'unknown' },
    ]);
    expect(result).toMatchObject({ reached: true, status: 200 });
    expect(result.transient).toBeUndefined();
    expect(sent[0].headers['webhook-id']).toBe('dlv_1');
    expect(sent[0].headers['webhook-signature']).toMatch(/^v1,/);
  });

  it.each([
    [{ statusCode: 200, responseBody: 'not json with rejected' }, 'delivered'],
    [{ statusCode: 204, responseBody: '' }, 'delivered'],
  ])('ignores an answer body it cannot read: %j', async (answer, status) => {
    const { send } = senderAnswering(answer);
    expect((await send([record('a')])).outcomes).toEqual([{ message_id: 'a', status }]);
  });

  it.each([408, 429, 500, 503, 302])('leaves the batch pending on %i, with its Retry-After', async (code) => {
    const { send } = senderAnswering({ statusCode: code, responseBody: 'later', retryAfter: '7' });
    const result = await send([record('a')]);
    expect(result.outcomes).toEqual([]);
    expect(result.transient).toEqual({ error: `HTTP ${code}: later`, statusCode: code, retryAfter: '7' });
  });

  it('leaves the batch pending without an answer', async () => {
    const { send } = senderAnswering({ error: 'no answer within 1 s' });
    const result = await send([record('a')]);
    expect(result).toMatchObject({ outcomes: [], transient: { error: 'no answer within 1 s' }, status: null });
  });

  it.each([400, 401, 404, 410, 422])(
    'rejects every record of the batch on %i, with the answer (secrets scrubbed)',
    async (code) => {
      const { send } = senderAnswering({ statusCode: code, responseBody: `bad s3cret ${'x'.repeat(600)}` });
      const result = await send([record('a'), record('b')]);
      expect(result.outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
      expect(result.outcomes[0].reason).toMatch(new RegExp(`^HTTP ${code}: bad \\*{8} x+$`));
      expect(result.outcomes[0].reason).toHaveLength(500);
      expect(result.transient).toBeUndefined();
    },
  );
});
