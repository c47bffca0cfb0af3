import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { toIso } from '../../../common/http/serialize.js';
import type { Customer } from '../../customer/entities/customer.entity.js';
import { UnsubscribeTokens } from '../../customer/unsubscribe/unsubscribe-tokens.js';
import { isMailAddress } from '../config/destination-config.js';
import {
  MappingFailed,
  type CompiledMapping,
  type CustomerScope,
  type MappingScope,
} from '../mapping/attribute-mapping.js';
import type { PreparedRecord, RecordAction, SkippedRecipient } from './delivery-record.js';

/** One customer to prepare a record for. */
export interface Recipient {
  customer: Customer;
  treatment_group: { id: number; name: string; type: string } | null;
  action: RecordAction;
  /** Default: messageIdOf(tenant, campaign destination, customer, the mapped data). */
  message_id?: string;
}

export interface PreparationInput {
  tenantId: number;
  destinationType: string;
  campaignDestinationId: number | null;
  mapping: CompiledMapping;
  campaign: { id: number; name: string } | null;
  recipients: readonly Recipient[];
}

/**
 * Customers → the records of one campaign destination (docs/destinations.md#attribute-mapping):
 * each mapped with the association's mapping, with the scope its templates see. What gets no
 * record is counted with its reason instead (SkipReason): on an `email` destination an
 * unsubscribed customer (`unsubscribed`) and one whose mapped `email` is no address
 * (`no_address`); on any, a mapping whose template could not render for the customer
 * (`mapping_failed`). Campaign runs prepare their recipients' records here before the lane sends them.
 */
@Injectable()
export class RecordPreparer {
  constructor(private readonly tokens: UnsubscribeTokens) {}

  prepare(input: PreparationInput): { records: PreparedRecord[]; skipped: SkippedRecipient[] } {
    const records: PreparedRecord[] = [];
    const skipped: SkippedRecipient[] = [];
    const email = input.destinationType === 'email';
    for (const recipient of input.recipients) {
      const { customer } = recipient;
      if (email && customer.unsubscribed_at) {
        skipped.push({ customer_id: customer.id, reason: 'unsubscribed' });
        continue;
      }
      // The unsubscribe link (an HMAC) is made when a mapping or template reads it, not for every record.
      const link = { address: customer.email, url: undefined as string | null | undefined };
      const unsubscribeUrl = () =>
        link.url === undefined ? (link.url = this.unsubscribeUrl(input.tenantId, customer.id, link.address)) : link.url;
      const scope: MappingScope = {
        customer: customerScope(customer),
        campaign: input.campaign,
        treatment_group: recipient.treatment_group,
        get unsubscribe_url() {
          return unsubscribeUrl();
        },
      };
      let data: Record<string, unknown>;
      try {
        data = input.mapping.map(scope);
      } catch (error) {
        if (!(error instanceof MappingFailed)) throw error;
        skipped.push({ customer_id: customer.id, reason: 'mapping_failed', detail: error.message });
        continue;
      }
      if (email) {
        const to = data.email;
        if (typeof to !== 'string' || !isMailAddress(to)) {
          skipped.push({ customer_id: customer.id, reason: 'no_address' });
          continue;
        }
        // The link names the address the message goes to.
        [link.address, link.url] = [to, undefined];
      }
      records.push({
        message_id: recipient.message_id ?? messageIdOf(input.tenantId, input.campaignDestinationId, customer.id, data),
        action: recipient.action,
        customer_id: customer.id,
        external_id: customer.external_id,
        treatment_group_id: recipient.treatment_group?.id ?? null,
        data,
        scope,
      });
    }
    return { records, skipped };
  }

  private unsubscribeUrl(tenantId: number, customerId: number, address: string | null): string | null {
    return address && isMailAddress(address) ? this.tokens.url(tenantId, customerId, address) : null;
  }
}

/** A customer as mappings and templates see it: the API's fields, `attributes` parsed. */
export function customerScope(customer: Customer): CustomerScope {
  let attributes: unknown = null;
  if (customer.attributes) {
    try {
      attributes = JSON.parse(customer.attributes);
    } catch {
      attributes = null;
    }
  }
  return {
    id: customer.id,
    external_id: customer.external_id,
    first_name: customer.first_name,
    last_name: customer.last_name,
    email: customer.email,
    phone: customer.phone,
    attributes,
    is_active: customer.is_active,
    created_at: toIso(customer.created_at),
    updated_at: toIso(customer.updated_at),
    unsubscribed_at: toIso(customer.unsubscribed_at),
  };
}

/** The checksum of mapped data: SHA-256 of its JSON with keys in order (a run compares it with the last one sent). */
export function dataChecksum(data: unknown): string {
  return createHash('sha256').update(canonicalJson(data)).digest('base64url');
}

/**
 * A record's stable id: the same tenant, association, customer and data give the same id on every
 * attempt and every instance, so a receiver drops a repeat (a batch sent again after a crash).
 */
export function messageIdOf(
  tenantId: number,
  campaignDestinationId: number | null,
  customerId: number,
  data: unknown,
): string {
  const key = `${tenantId}:${campaignDestinationId ?? 0}:${customerId}:${dataChecksum(data)}`;
  return `msg_${createHash('sha256').update(key).digest('base64url').slice(0, 26)}`;
}

function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`).join(',')}}`;
}
