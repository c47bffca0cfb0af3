import { Injectable } from '@nestjs/common';
import { ValidationFailed, type FieldErrors } from '../../../common/http/api-exception.js';
import { readConnectionDetails, type DestinationConfig, type NetworkTarget } from '../config/destination-config.js';
import type { CampaignDestination, Destination } from '../entities/destination.entity.js';
import { compileMapping, hasTarget, type CompiledMapping, type Problem } from '../mapping/attribute-mapping.js';
import { DestinationSecrets } from '../secrets/destination-secrets.js';
import { TargetAddresses } from './target-addresses.js';

/** What a destination is for delivery: its settings, or the problems that keep it from delivering. */
export interface Assessment {
  config?: DestinationConfig;
  problems: Problem[];
  /** Hosts the address policy must allow (checked by `assess`). */
  targets: NetworkTarget[];
  /** Every secret's text, scrubbed from errors. */
  secrets: string[];
}

/** A campaign destination for delivery: its mapping, or the problems of the link and of its destination. */
export interface LinkAssessment {
  mapping?: CompiledMapping;
  problems: Problem[];
}

/**
 * Whether a destination, and a campaign destination, can deliver (docs/destinations.md#deliverable):
 * any type and any JSON are stored as sent; what they lack for delivery is reported as problems
 * (`deliverable: false`) on every read, and refused with a 422 listing them on every use for
 * delivery (a test send, a run). `read` needs no network; `assess` adds the address policy of
 * every host the destination names (DNS, kept a minute; `fresh` at a use).
 */
@Injectable()
export class Deliverability {
  /** The reading of a row, shared by the answer's mapper and its decoration (one read per row object). */
  private readonly readings = new WeakMap<Destination, Assessment>();

  constructor(
    private readonly secrets: DestinationSecrets,
    private readonly addresses: TargetAddresses,
  ) {}

  /** The problems found without the network: the type, each key's rule, templates, secrets that are missing. */
  read(destination: Destination): Assessment {
    const known = this.readings.get(destination);
    if (known) return known;
    const opened = this.secrets.open(destination);
    let reading: Assessment;
    if (opened.unreadable) {
      reading = {
        problems: [
          {
            field: 'connection_details',
            message: 'The stored secrets cannot be read with this DESTINATION_SECRET_KEY: send them again.',
          },
        ],
        targets: [],
        secrets: [],
      };
    } else {
      const { config, problems, targets } = readConnectionDetails(destination.destination_type, opened.details);
      const missing = opened.missing.map((path) => ({
        field: ['connection_details', ...path].join('.'),
        message: 'No secret is stored for this key (it was sent as ********, or its URL changed): send its value.',
      }));
      const all = [...missing, ...problems];
      reading = { config: all.length ? undefined : config, problems: all, targets, secrets: opened.secrets };
    }
    this.readings.set(destination, reading);
    return reading;
  }

  /** `read`, then every host checked against the address policy. */
  async assess(destination: Destination, options: { fresh?: boolean } = {}): Promise<Assessment> {
    const reading = this.read(destination);
    const refused = await this.addressProblems(reading, options);
    if (refused.length === 0) return reading;
    return { ...reading, config: undefined, problems: [...reading.problems, ...refused] };
  }

  async addressProblems(reading: Assessment, options: { fresh?: boolean } = {}): Promise<Problem[]> {
    const problems: Problem[] = [];
    for (const target of reading.targets) {
      const refused = await this.addresses.refusal(target.url, options);
      if (refused) problems.push({ field: target.field, message: refused });
    }
    return problems;
  }

  /**
   * A campaign destination's own problems (its mapping; an `email` destination's mapping needs an
   * `email` target), then its destination's, under `destination.`: an inactive destination is one.
   */
  link(
    link: Pick<CampaignDestination, 'attribute_mapping'>,
    destination: { destination_type: string; is_active: boolean; problems: Problem[] },
  ): LinkAssessment {
    const { mapping, problems } = compileMapping(link.attribute_mapping);
    if (mapping && destination.destination_type === 'email' && !hasTarget(mapping, 'email')) {
      problems.push({
        field: 'attribute_mapping.email',
        message: 'An email destination sends to the mapped email: the mapping needs an "email" target.',
      });
    }
    if (!destination.is_active)
      problems.push({ field: 'destination.is_active', message: 'The destination is not active.' });
    for (const problem of destination.problems)
      problems.push({ field: `destination.${problem.field}`, message: problem.message });
    return { mapping: problems.length ? undefined : mapping, problems };
  }
}

/** The 422 of a use for delivery: every problem on its field. */
export function notDeliverable(problems: readonly Problem[]): ValidationFailed {
  const errors: FieldErrors = {};
  for (const problem of problems) (errors[problem.field] ??= []).push(problem.message);
  return new ValidationFailed(errors);
}
