import { nestsDeeperThan } from '../../../common/http/body-parsing.js';
import type { Problem } from '../mapping/attribute-mapping.js';
import { parseTemplate, TemplateError, type Template, type TemplateKind } from '../templates/liquid-templates.js';

/** The destination types this service delivers to (docs/destinations.md, a page per type). */
export const DELIVERED_TYPES = ['webhook', 'email', 'amqp', 'file'] as const;
export type DeliveredType = (typeof DELIVERED_TYPES)[number];

export interface WebhookConfig {
  type: 'webhook';
  url: string;
  method: 'POST' | 'PUT';
  headers: Record<string, string>;
  batchSize: number;
  ratePerSecond: number;
  concurrency: number;
  timeoutMs: number;
  /** `connection_details.secret`, when given; otherwise the destination's generated signing secret signs. */
  secret?: string;
}

export interface EmailConfig {
  type: 'email';
  from: string;
  replyTo?: string;
  subject: Template | null;
  html: Template | null;
  text: Template | null;
  /** Default: the service's MAIL_URL (else `.eml` files). */
  smtpUrl?: string;
  ratePerSecond: number;
  listId?: string;
  batchSize: number;
  concurrency: number;
}

export interface AmqpConfig {
  type: 'amqp';
  url: string;
  exchange: string;
  /** Default: the record's action. */
  routingKey: Template | null;
  queue?: string;
  bindingKey: string;
  batchSize: number;
  concurrency: number;
  ratePerSecond?: number;
  timeoutMs: number;
}

export interface FileConfig {
  type: 'file';
  format: 'csv' | 'ndjson';
  mode: 'all' | 'changes';
  batchSize: number;
}

export type DestinationConfig = WebhookConfig | EmailConfig | AmqpConfig | FileConfig;

/** A URL of the connection details the address policy must allow (checked on read, and again at every connection). */
export interface NetworkTarget {
  field: string;
  url: string;
}

export interface ConfigReading {
  config?: DestinationConfig;
  problems: Problem[];
  targets: NetworkTarget[];
}

/** Headers a webhook destination may not set: the service sets them (the signature, the body's framing). */
const RESERVED_HEADERS = new Set([
  'host',
  'content-type',
  'content-length',
  'transfer-encoding',
  'connection',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
]);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;
const LINE_BREAK = /[\r\n\0]/;
const ADDRESS = /^[^\s@<>",;:]+@[^\s@<>",;:]+$/;
const NAMED_ADDRESS = /^\s*(?:"[^"\r\n]*"|[^"<>\r\n]*?)\s*<([^<>\s]+)>\s*$/;
const WEBHOOK_SECRET = /^whsec_[A-Za-z0-9+/]+={0,2}$/;

/** A mail address: `a@b.example` or `Name <a@b.example>`. */
export function isMailAddress(value: string): boolean {
  if (LINE_BREAK.test(value) || value.length > 512) return false;
  const named = NAMED_ADDRESS.exec(value);
  return ADDRESS.test(named ? named[1] : value.trim());
}

/** The bare address of `a@b.example` or `Name <a@b.example>`. */
export function bareAddress(value: string): string {
  const named = NAMED_ADDRESS.exec(value);
  return (named ? named[1] : value).trim();
}

/**
 * What a destination's `connection_details` (secrets back in place) mean for delivery: its type's
 * settings, or the problems that keep it from delivering, each on `connection_details.<key>` (or
 * `destination_type`). Any type and any JSON stay stored as sent: this only reads them.
 */
export function readConnectionDetails(type: string, details: unknown): ConfigReading {
  if (!(DELIVERED_TYPES as readonly string[]).includes(type)) {
    return {
      problems: [
        {
          field: 'destination_type',
          message: `This service delivers to ${DELIVERED_TYPES.join(', ')} destinations; "${type}" is none of them.`,
        },
      ],
      targets: [],
    };
  }
  if (details === null || typeof details !== 'object' || Array.isArray(details)) {
    return {
      problems: [{ field: 'connection_details', message: 'The connection details must be a JSON object.' }],
      targets: [],
    };
  }
  if (nestsDeeperThan(details, 32)) {
    return {
      problems: [{ field: 'connection_details', message: 'The connection details nest deeper than 32 levels.' }],
      targets: [],
    };
  }
  const keys = new Keys(details as Record<string, unknown>);
  const reading = READERS[type as DeliveredType](keys);
  return {
    config: keys.problems.length ? undefined : reading.config,
    problems: keys.problems,
    targets: reading.targets,
  };
}

const READERS: Record<DeliveredType, (keys: Keys) => { config: DestinationConfig; targets: NetworkTarget[] }> = {
  webhook: (k) => {
    const url = k.url('url', ['http', 'https'], true)!;
    const secret = k.string('secret');
    if (secret !== undefined && !isWebhookSecret(secret)) {
      k.problem('secret', 'The secret must be a Standard Webhooks secret: whsec_ and the base64 of 24 to 64 bytes.');
    }
    return {
      config: {
        type: 'webhook',
        url,
        method: k.oneOf('method', ['POST', 'PUT'] as const) ?? 'POST',
        headers: k.headers('headers'),
        batchSize: k.integer('batch_size', 1, 1_000) ?? 100,
        ratePerSecond: k.number('rate_per_second', 1_000) ?? 10,
        concurrency: k.integer('concurrency', 1, 16) ?? 2,
        timeoutMs: k.integer('timeout_ms', 100, 60_000) ?? 15_000,
        secret,
      },
      targets: url ? [{ field: 'connection_details.url', url }] : [],
    };
  },
  email: (k) => {
    const from = k.string('from', true);
    if (from !== undefined && !isMailAddress(from))
      k.problem('from', 'The from field must be an e-mail address, as a@b.example or Name <a@b.example>.');
    const replyTo = k.string('reply_to');
    if (replyTo !== undefined && !isMailAddress(replyTo))
      k.problem('reply_to', 'The reply_to field must be an e-mail address.');
    const listId = k.string('list_id');
    if (listId !== undefined && (LINE_BREAK.test(listId) || listId.length === 0 || listId.length > 255)) {
      k.problem('list_id', 'The list_id field is one line of at most 255 characters.');
    }
    const html = k.template('html', 'html');
    const text = k.template('text', 'text');
    if (!k.has('html') && !k.has('text')) k.problem('html', 'An e-mail needs a body: give html, text or both.');
    const smtpUrl = k.url('smtp_url', ['smtp', 'smtps']);
    return {
      config: {
        type: 'email',
        from: from ?? '',
        replyTo,
        subject: k.template('subject', 'text'),
        html,
        text,
        smtpUrl,
        ratePerSecond: k.number('rate_per_second', 1_000) ?? 10,
        listId,
        batchSize: k.integer('batch_size', 1, 100) ?? 10,
        concurrency: k.integer('concurrency', 1, 16) ?? 2,
      },
      targets: smtpUrl ? [{ field: 'connection_details.smtp_url', url: smtpUrl }] : [],
    };
  },
  amqp: (k) => {
    const url = k.url('url', ['amqp', 'amqps'], true)!;
    const exchange = k.string('exchange', true, true);
    const queue = k.string('queue');
    if (queue !== undefined && (queue === '' || queue.length > 255))
      k.problem('queue', 'A queue name has 1 to 255 characters.');
    if (queue !== undefined && exchange === '') {
      k.problem('queue', 'A queue cannot be bound to the default exchange (""): name an exchange, or leave queue out.');
    }
    if (exchange !== undefined && exchange.length > 255)
      k.problem('exchange', 'An exchange name has at most 255 characters.');
    return {
      config: {
        type: 'amqp',
        url,
        exchange: exchange ?? '',
        routingKey: k.template('routing_key', 'text'),
        queue,
        bindingKey: k.string('binding_key', false, true) ?? '#',
        batchSize: k.integer('batch_size', 1, 1_000) ?? 100,
        concurrency: k.integer('concurrency', 1, 16) ?? 2,
        ratePerSecond: k.number('rate_per_second', 100_000),
        timeoutMs: k.integer('timeout_ms', 100, 60_000) ?? 15_000,
      },
      targets: url ? [{ field: 'connection_details.url', url }] : [],
    };
  },
  file: (k) => ({
    config: {
      type: 'file',
      format: k.oneOf('format', ['csv', 'ndjson'] as const, true) ?? 'csv',
      mode: k.oneOf('mode', ['all', 'changes'] as const) ?? 'all',
      batchSize: k.integer('batch_size', 1, 100_000) ?? 10_000,
    },
    targets: [],
  }),
};

export function isWebhookSecret(value: string): boolean {
  if (!WEBHOOK_SECRET.test(value)) return false;
  const bytes = Buffer.from(value.slice('whsec_'.length), 'base64').length;
  return bytes >= 24 && bytes <= 64;
}

/** The keys of one object of connection details, read with their rules; what breaks a rule is a problem. */
class Keys {
  readonly problems: Problem[] = [];

  constructor(private readonly details: Record<string, unknown>) {}

  has(key: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.details, key) && this.details[key] !== null;
  }

  problem(key: string, message: string): void {
    this.problems.push({ field: `connection_details.${key}`, message });
  }

  private value(key: string, required: boolean): unknown {
    if (this.has(key)) return this.details[key];
    if (required) this.problem(key, `The ${key} field is required.`);
    return undefined;
  }

  string(key: string, required = false, emptyAllowed = false): string | undefined {
    const value = this.value(key, required);
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || (!emptyAllowed && value === '')) {
      this.problem(key, `The ${key} field must be ${emptyAllowed ? 'a string' : 'a non-empty string'}.`);
      return undefined;
    }
    return value;
  }

  integer(key: string, min: number, max: number): number | undefined {
    const value = this.value(key, false);
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      this.problem(key, `The ${key} field must be a whole number from ${min} to ${max}.`);
      return undefined;
    }
    return value;
  }

  number(key: string, max: number): number | undefined {
    const value = this.value(key, false);
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !(value > 0) || value > max) {
      this.problem(key, `The ${key} field must be a number above 0 and at most ${max}.`);
      return undefined;
    }
    return value;
  }

  oneOf<T extends string>(key: string, values: readonly T[], required = false): T | undefined {
    const value = this.value(key, required);
    if (value === undefined) return undefined;
    if (!values.includes(value as T)) {
      this.problem(key, `The ${key} field must be one of ${values.join(', ')}.`);
      return undefined;
    }
    return value as T;
  }

  url(key: string, protocols: string[], required = false): string | undefined {
    const value = this.string(key, required);
    if (value === undefined) return undefined;
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      this.problem(key, `The ${key} field must be a URL.`);
      return undefined;
    }
    if (!protocols.includes(parsed.protocol.replace(/:$/, ''))) {
      this.problem(key, `The ${key} field must use ${protocols.map((p) => `${p}://`).join(' or ')}.`);
      return undefined;
    }
    if (!parsed.hostname) {
      this.problem(key, `The ${key} field must name a host.`);
      return undefined;
    }
    return value;
  }

  headers(key: string): Record<string, string> {
    const value = this.value(key, false);
    if (value === undefined) return {};
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.problem(key, 'The headers field must be an object of header names and string values.');
      return {};
    }
    const headers: Record<string, string> = {};
    for (const [name, text] of Object.entries(value)) {
      if (!HEADER_NAME.test(name)) this.problem(`${key}.${name}`, 'Not a valid header name.');
      else if (RESERVED_HEADERS.has(name.toLowerCase()))
        this.problem(`${key}.${name}`, 'The service sets this header itself.');
      else if (typeof text !== 'string' || LINE_BREAK.test(text))
        this.problem(`${key}.${name}`, 'A header value is a string on one line.');
      else headers[name.toLowerCase()] = text;
    }
    return headers;
  }

  template(key: string, kind: TemplateKind): Template | null {
    const value = this.string(key, false, true);
    if (value === undefined) return null;
    const template = parseTemplate(value, kind);
    if (template instanceof TemplateError) {
      this.problem(key, `The template does not parse: ${template.message}`);
      return null;
    }
    return template;
  }
}
