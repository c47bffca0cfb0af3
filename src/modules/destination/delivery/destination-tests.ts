import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../../common/auth/auth-context.js';
import { RecordNotFound, ValidationFailed } from '../../../common/http/api-exception.js';
import { Tables, type TenantReads } from '../../../common/persistence/tables.js';
import { Customer } from '../../customer/entities/customer.entity.js';
import { TreatmentGroup } from '../../marketing/entities/campaign-children.entity.js';
import { Campaign } from '../../marketing/entities/campaign.entity.js';
import type { DestinationTestDto } from '../dto/destination.dto.js';
import type { DestinationTestResponse } from '../dto/destination.response.js';
import { CampaignDestination, Destination } from '../entities/destination.entity.js';
import { CUSTOMER_FIELDS_MAPPING, type Problem } from '../mapping/attribute-mapping.js';
import { Deliverability, notDeliverable } from './deliverability.js';
import { DestinationSenders } from './destination-senders.js';
import { RecordPreparer } from './record-preparer.js';

const SKIPPED: Record<string, string> = {
  unsubscribed: 'The customer unsubscribed from e-mail: test with another customer.',
  no_address: 'The customer has no e-mail address under this mapping: test with another customer.',
};

/**
 * `POST /api/destinations/{id}/test`: one record, mapped from one customer with one association's
 * mapping (without one: every customer field under its own name), delivered through the real
 * path (DestinationSenders, the type's sender, the address policy at the connection). A
 * destination or association that cannot deliver is a 422 listing its problems. It marks nobody
 * delivered, counts toward no cap, and leaves the destination's health alone.
 */
@Injectable()
export class DestinationTests {
  constructor(
    private readonly tables: Tables,
    private readonly deliverability: Deliverability,
    private readonly preparer: RecordPreparer,
    private readonly senders: DestinationSenders,
  ) {}

  async test(auth: AuthContext, destinationId: number, dto: DestinationTestDto): Promise<DestinationTestResponse> {
    const reads = this.tables.read(auth);
    const destination = await reads.table(Destination).findById(destinationId);
    if (!destination) throw new RecordNotFound('destination');
    const link =
      dto.campaign_destination_id === undefined
        ? undefined
        : await this.linkOf(reads, destination, dto.campaign_destination_id);
    const assessment = await this.deliverability.assess(destination, { fresh: true });
    const problems: Problem[] = [...assessment.problems];
    let mapping = CUSTOMER_FIELDS_MAPPING;
    if (link) {
      // The destination's own problems are listed once, above; a test of an inactive destination is allowed.
      const linked = this.deliverability.link(link, {
        destination_type: destination.destination_type,
        is_active: true,
        problems: [],
      });
      problems.push(...linked.problems);
      if (linked.mapping) mapping = linked.mapping;
    } else if (destination.destination_type === 'email') {
      problems.push({
        field: 'campaign_destination_id',
        message: 'An email destination sends to the mapped email: name a campaign destination whose mapping has one.',
      });
    }
    if (problems.length || !assessment.config) throw notDeliverable(problems);
    const customer = await this.customerOf(reads, dto.customer_id);
    const campaign = link ? await reads.table(Campaign).findById(link.campaign_id) : undefined;
    const group = link?.treatment_group_id
      ? await reads.table(TreatmentGroup).findById(link.treatment_group_id)
      : undefined;
    const testId = `test_${randomBytes(12).toString('base64url')}`;
    const { records, skipped } = this.preparer.prepare({
      tenantId: auth.tenantId,
      destinationType: destination.destination_type,
      campaignDestinationId: link?.id ?? null,
      mapping,
      campaign: campaign ? { id: campaign.id, name: campaign.name } : null,
      recipients: [
        {
          customer,
          treatment_group: group ? { id: group.id, name: group.name, type: group.type } : null,
          action: 'add',
          message_id: testId,
        },
      ],
    });
    if (skipped.length) {
      const { reason, detail } = skipped[0];
      throw ValidationFailed.field('customer_id', SKIPPED[reason] ?? `The mapping failed for this customer: ${detail}`);
    }
    const result = await this.senders.send(destination, assessment.config, assessment.secrets, records, {
      tenantId: auth.tenantId,
      destinationId: destination.id,
      campaignDestinationId: link?.id ?? null,
      campaignId: link?.campaign_id ?? null,
      runId: null,
      batchId: testId,
      test: true,
      targets: mapping.targets,
    });
    return {
      delivered: result.outcomes[0]?.status === 'delivered',
      status: result.status,
      duration_ms: result.durationMs,
      answer:
        result.outcomes[0]?.status === 'rejected' && !result.answer ? (result.outcomes[0].reason ?? '') : result.answer,
    };
  }

  private async linkOf(reads: TenantReads, destination: Destination, id: number): Promise<CampaignDestination> {
    const link = await reads.table(CampaignDestination).findById(id);
    if (!link || link.destination_id !== destination.id) {
      throw ValidationFailed.field(
        'campaign_destination_id',
        'The selected campaign destination id is not one of this destination.',
      );
    }
    return link;
  }

  /** The customer named, or the tenant's most recently updated one. */
  private async customerOf(reads: TenantReads, id: number | undefined): Promise<Customer> {
    const customers = reads.table(Customer);
    if (id !== undefined) {
      const customer = await customers.findById(id);
      if (!customer) throw ValidationFailed.field('customer_id', 'The selected customer id is invalid.');
      return customer;
    }
    const scope = customers.scope('c');
    const [row] = await reads.select<Record<string, unknown>>(
      `SELECT ${customers.spec.selectList('c')} FROM customers c WHERE ${scope.sql} ORDER BY c.updated_at DESC, c.id DESC LIMIT 1`,
      scope.params,
    );
    if (!row) throw ValidationFailed.field('customer_id', 'The tenant has no customer to test with.');
    return customers.spec.normalize(row);
  }
}
