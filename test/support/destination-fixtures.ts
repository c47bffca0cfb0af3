import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { JobRunner } from '../../src/common/jobs/job-runner.js';
import type { DestinationsConfig, WebhooksConfig } from '../../src/common/config/app-config.js';
import { DestinationDeliveries } from '../../src/modules/destination/delivery/destination-deliveries.js';
import { Deliverability } from '../../src/modules/destination/delivery/deliverability.js';
import { RecordPreparer, type Recipient } from '../../src/modules/destination/delivery/record-preparer.js';
import { CUSTOMER_FIELDS_MAPPING } from '../../src/modules/destination/mapping/attribute-mapping.js';
import { Customer } from '../../src/modules/customer/entities/customer.entity.js';
import { Destination } from '../../src/modules/destination/entities/destination.entity.js';
import { systemAuth } from '../../src/common/auth/auth-context.js';
import { Tables } from '../../src/common/persistence/tables.js';
import { created, type Body, type Client } from './campaign-fixtures.js';
import { createTestApp, type ConfigOverrides, type TestApp } from './test-app.js';

export interface Received {
  path: string;
  method: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

type Reply = (req: IncomingMessage, res: ServerResponse) => void;

/** A local HTTP receiver that records every request and answers as told (200 `ok` by default), or holds it. */
export class Receiver {
  readonly received: Received[] = [];
  private readonly replies = new Map<string, Reply[]>();
  private readonly held = new Map<string, ServerResponse[]>();
  private readonly holding = new Set<string>();
  private server!: Server;
  port = 0;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const path = req.url ?? '/';
        this.received.push({ path, method: req.method ?? '', headers: req.headers, body, at: Date.now() });
        if (this.holding.has(path)) {
          this.held.set(path, [...(this.held.get(path) ?? []), res]);
          return;
        }
        const queue = this.replies.get(path);
        const reply = queue?.length ? queue.shift()! : undefined;
        if (reply) reply(req, res);
        else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** The next answers to requests on `path`, in order. */
  answer(path: string, ...replies: Reply[]): void {
    this.replies.set(path, [...(this.replies.get(path) ?? []), ...replies]);
  }

  /** Requests on `path` get no answer until `release`. */
  hold(path: string): void {
    this.holding.add(path);
  }

  release(path: string): void {
    this.holding.delete(path);
    for (const res of this.held.get(path) ?? []) res.writeHead(200).end('late');
    this.held.delete(path);
  }

  on(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  async until(path: string, count: number, timeoutMs = 20_000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.on(path).length < count) {
      if (Date.now() > deadline) throw new Error(`${path}: ${this.on(path).length} of ${count} requests arrived`);
      await sleep(20);
    }
    return this.on(path);
  }

  close(): Promise<void> {
    for (const path of [...this.holding]) this.release(path);
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

export const status =
  (code: number, body = `answer ${code}`, headers: Record<string, string> = {}): Reply =>
  (_req, res) =>
    res.writeHead(code, headers).end(body);

export type Any = any;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const unique = () => randomBytes(4).toString('hex');

/** Waits until `check` answers something other than undefined (or fails after `timeoutMs`). */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('the condition was not met in time');
    await sleep(25);
  }
}

/** A test app for delivery: the machine's own addresses allowed (the local receivers, SMTP server, broker), quick retries. */
export function startDeliveryApp(
  options: {
    webhooks?: Partial<WebhooksConfig>;
    destinations?: Partial<DestinationsConfig>;
    config?: ConfigOverrides;
    env?: Record<string, string | undefined>;
    /** A second instance over the same database. */
    sharedWith?: TestApp;
  } = {},
): Promise<TestApp> {
  return createTestApp({
    // Files and .eml messages of each app in a folder of its own.
    env: { STORAGE_DIR: mkdtempSync(join(tmpdir(), 'cs-storage-')), ...options.env },
    sharedWith: options.sharedWith,
    config: {
      rateLimitPerMinute: 100_000,
      authAttemptsPerMinute: 100_000,
      ...options.config,
      webhooks: { allowedHosts: '127.0.0.1', ...options.webhooks },
      destinations: { pollMs: 20, retrySchedule: [1, 1, 1], ...options.destinations },
    },
  });
}

export const newDeliveryDestination = (api: Client, type: string, details: object | string, overrides: Body = {}) =>
  created(
    api.post('/api/destinations', {
      name: `${type} ${unique()}`,
      destination_type: type,
      connection_details: typeof details === 'string' ? details : JSON.stringify(details),
      ...overrides,
    }),
  );

/** POST /api/destinations/{id}/test, answering status and body. */
export async function testSend(api: Client, destinationId: number, body: Body = {}) {
  const res = await api.post(`/api/destinations/${destinationId}/test`, body);
  return { status: res.status, body: res.body as Any };
}

/**
 * Queues prepared records of customers on a destination's lane (the `records` source), as a run
 * would queue its batches, and nudges the runner. Answers the records.
 */
export async function queueRecords(
  t: TestApp,
  tenantId: number,
  destinationId: number,
  customerIds: number[],
  options: { campaignDestinationId?: number; runId?: number } = {},
) {
  const tables = t.app.get(Tables);
  const auth = systemAuth(tenantId, `test-${unique()}`);
  const reads = tables.read(auth);
  const destination = (await reads.table(Destination).findById(destinationId))!;
  const customers = await reads.table(Customer).findMany(customerIds);
  const config = t.app.get(Deliverability).read(destination).config!;
  const recipients: Recipient[] = customerIds.map((id) => ({
    customer: customers.find((c) => c.id === id)!,
    treatment_group: null,
    action: 'add',
  }));
  const { records, skipped } = t.app.get(RecordPreparer).prepare({
    tenantId,
    destinationType: destination.destination_type,
    campaignDestinationId: options.campaignDestinationId ?? null,
    mapping: CUSTOMER_FIELDS_MAPPING,
    campaign: null,
    recipients,
  });
  const deliveries = t.app.get(DestinationDeliveries);
  const batches = deliveries.recordBatches(
    {
      destination_id: destinationId,
      campaign_destination_id: options.campaignDestinationId ?? null,
      campaign_id: null,
      run_id: options.runId ?? null,
      targets: [...CUSTOMER_FIELDS_MAPPING.targets],
    },
    config,
    records,
  );
  await tables.writeWithBookkeeping(auth, (_tx, bookkeeping) => deliveries.enqueue(bookkeeping, tenantId, batches));
  deliveries.nudge();
  return { records, skipped, batches };
}

export const runner = (t: TestApp) => t.app.get(JobRunner);
