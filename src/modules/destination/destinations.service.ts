import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../common/auth/auth-context.js';
import { ApiException } from '../../common/http/api-exception.js';
import { Jobs } from '../../common/jobs/jobs.js';
import { refuseIfUsed } from '../../common/resources/delete-conflict.js';
import { optional } from '../../common/resources/dto-values.js';
import { ResourceService } from '../../common/resources/resource.service.js';
import { Tables } from '../../common/persistence/tables.js';
import { readConnectionDetails } from './config/destination-config.js';
import { DESTINATION_QUEUE, destinationLane } from './delivery/delivery-batch.js';
import { Deliverability } from './delivery/deliverability.js';
import { TargetAddresses } from './delivery/target-addresses.js';
import type { DestinationDto } from './dto/destination.dto.js';
import {
  toDestinationResponse,
  type DestinationCreatedResponse,
  type DestinationResponse,
  type SigningSecretResponse,
} from './dto/destination.response.js';
import { CampaignDestination, Destination } from './entities/destination.entity.js';
import { DestinationSecrets } from './secrets/destination-secrets.js';

/** The old signing secret keeps signing beside the new one this long after a rotation (as webhooks do). */
const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

/**
 * Destinations: stored as the contract says (any type, any JSON, echoed as sent), except that
 * their secrets are write-only (kept sealed, answered `********` everywhere a destination appears:
 * the answers, the change feed and its webhooks, the activity log); answered with `deliverable`,
 * `problems` and their delivery health. A webhook destination gets a generated signing secret,
 * shown by the create answer and rotate-secret only. Switched off, a destination's lane is held.
 */
@Injectable()
export class DestinationsService extends ResourceService<Destination, DestinationDto, DestinationResponse> {
  constructor(
    tables: Tables,
    private readonly secrets: DestinationSecrets,
    private readonly deliverability: Deliverability,
    private readonly addresses: TargetAddresses,
    jobs: Jobs,
  ) {
    super(tables, {
      entity: Destination,
      resource: 'destination',
      label: 'destination',
      sorts: { name: 'string', created_at: 'date' },
      filters: { q: ['name'], exact: ['is_active'] },
      toColumns: (dto, existing) => {
        const values: Partial<Destination> = {
          name: dto.name,
          description: optional(dto.description, existing?.description, null),
          destination_type: dto.destination_type,
          ...secrets.seal(dto.connection_details, existing),
          is_active: optional(dto.is_active, existing?.is_active, true),
        };
        // Generated once, whatever the type (a destination may become a webhook later); shown for a webhook.
        if (!existing?.signing_secret) values.signing_secret = secrets.newSigningSecret().sealed;
        return values;
      },
      toResponse: (row) => toDestinationResponse(row, deliverability.read(row).problems),
      // The address policy of the hosts it names (DNS kept a minute; warmed before a write: see `warm`).
      decorate: async (rows, responses) => {
        await Promise.all(
          rows.map(async (row, i) => {
            const refused = await deliverability.addressProblems(deliverability.read(row));
            if (refused.length === 0) return;
            responses[i].problems.push(...refused);
            responses[i].deliverable = false;
          }),
        );
      },
      createdAnswer: (row, answer) => {
        if (row.destination_type !== 'webhook' || this.namesItsSecret(row)) return answer;
        return Object.assign(answer, {
          signing_secret: secrets.signingSecret(row.signing_secret),
        }) as DestinationCreatedResponse;
      },
      // Switched off, its batches wait (the lane held); switched on, they go.
      afterWrite: async (row, _dto, { existing, bookkeeping }) => {
        if (!existing || existing.is_active === row.is_active) return;
        if (row.is_active) await jobs.letGo(bookkeeping, DESTINATION_QUEUE, destinationLane(row.id));
        else await jobs.hold(bookkeeping, DESTINATION_QUEUE, destinationLane(row.id));
      },
      beforeDelete: async (destination, tx) => {
        const uses = await tx.table(CampaignDestination).count({ destination_id: destination.id });
        refuseIfUsed('destination', [['campaign destination', uses]]);
      },
    });
  }

  override async create(auth: AuthContext, dto: DestinationDto): Promise<DestinationResponse> {
    await this.warm(dto);
    return super.create(auth, dto);
  }

  override async update(auth: AuthContext, id: number, dto: DestinationDto): Promise<DestinationResponse> {
    // The record as it is too: its answer is compared with If-Match inside the write.
    const existing = await this.tables.read(auth).table(Destination).findById(id);
    await Promise.all([this.warm(dto), existing && this.deliverability.assess(existing)]);
    return super.update(auth, id, dto);
  }

  /** A new generated signing secret for a webhook destination; the old one keeps signing beside it for 24 hours. */
  rotateSecret(auth: AuthContext, id: number): Promise<SigningSecretResponse> {
    return this.tables.writeWithBookkeeping(auth, async (tx, bookkeeping) => {
      const destination = await this.find(tx, id, true);
      if (destination.destination_type !== 'webhook') {
        throw new ApiException(409, { message: 'Only a webhook destination has a signing secret.' });
      }
      if (this.namesItsSecret(destination)) {
        throw new ApiException(409, {
          message: 'This destination signs with the secret of its connection_details: change it with a PUT.',
        });
      }
      const fresh = this.secrets.newSigningSecret();
      // Bookkeeping: a new secret is no change of the destination's record (its answer stays the same).
      await bookkeeping.run(
        `UPDATE destinations SET signing_secret = ?, previous_signing_secret = ?, previous_signing_secret_expires_at = ?
          WHERE id = ?`,
        [fresh.sealed, destination.signing_secret, Date.now() + ROTATION_OVERLAP_MS, destination.id],
      );
      const answer = { signing_secret: fresh.plain };
      await tx.keepAnswer(answer);
      return answer;
    });
  }

  /** Whether a webhook destination's connection details carry their own `secret`. */
  private namesItsSecret(destination: Destination): boolean {
    const { details } = this.secrets.open(destination);
    return details !== null && typeof details === 'object' && Object.prototype.hasOwnProperty.call(details, 'secret');
  }

  /**
   * Resolves the hosts a write names before its transaction, so that the answer and the change
   * feed's event (made inside it) find them known and no transaction waits on DNS.
   */
  private async warm(dto: DestinationDto): Promise<void> {
    let details: unknown;
    try {
      details = JSON.parse(dto.connection_details);
    } catch {
      return;
    }
    const { targets } = readConnectionDetails(dto.destination_type, details);
    await Promise.all(targets.map((target) => this.addresses.refusal(target.url)));
  }
}
