import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { recordFields } from '../../../common/http/record-fields.js';
import { toIso } from '../../../common/http/serialize.js';
import type { CampaignDestination, Destination } from '../entities/destination.entity.js';
import type { Problem } from '../mapping/attribute-mapping.js';
import { maskSecrets } from '../secrets/connection-secrets.js';

export class ProblemResponse {
  @ApiProperty({ example: 'connection_details.url', description: 'The field, dotted' }) field: string;
  @ApiProperty({ example: 'The url field is required.' }) message: string;
}

const DELIVERABLE = {
  description:
    'Whether it can deliver: `problems` is empty. Any type and JSON are stored as sent; what they lack for ' +
    'delivery is reported here, and every use for delivery (a test send, a run) refuses it with a 422 listing them.',
};

const PROBLEMS: ApiPropertyOptions = {
  type: [ProblemResponse],
  description: 'What keeps it from delivering, each on its field (`connection_details.url`, `destination_type`, ...)',
};

export class DestinationResponse {
  @ApiProperty() id: number;
  @ApiProperty() tenant_id: number;
  @ApiProperty() name: string;
  @ApiProperty({ type: String, nullable: true }) description: string | null;
  @ApiProperty({
    example: 'webhook',
    description: 'Delivered to: `webhook`, `email`, `amqp`, `file` (any text is stored)',
  })
  destination_type: string;
  @ApiProperty({
    description:
      'JSON text, as sent, except that every secret is answered as `"********"`: the values of keys named ' +
      '`password`, `secret`, `token`, `api_key`, `private_key` or `authorization` (any case; also names ending ' +
      'in the first five) and the password of any URL. A PUT sending `"********"` back keeps the stored secret. ' +
      'The keys of each type: docs/destinations.md.',
    example: '{"url":"https://hooks.example.com/campaigns","headers":{"Authorization":"********"},"batch_size":100}',
  })
  connection_details: string;
  @ApiProperty() is_active: boolean;
  @ApiProperty(DELIVERABLE) deliverable: boolean;
  @ApiProperty(PROBLEMS) problems: ProblemResponse[];
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When it last accepted a delivery' })
  last_success_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When a delivery last failed' })
  last_failure_at: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Why the last failed delivery failed' })
  last_error: string | null;
  @ApiProperty({ description: 'Failed deliveries since the last successful one' }) consecutive_failures: number;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) created_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) updated_at: string | null;
}

/** The create answer: a webhook destination's generated signing secret, shown here and by rotate-secret only. */
export class DestinationCreatedResponse extends DestinationResponse {
  @ApiPropertyOptional({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    description:
      'A `webhook` destination without `connection_details.secret`: the Standard Webhooks secret it signs with, ' +
      'shown only here and by `POST /api/destinations/{id}/rotate-secret`',
  })
  signing_secret?: string;
}

export class SigningSecretResponse {
  @ApiProperty({ example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }) signing_secret: string;
}

export class DestinationTestResponse {
  @ApiProperty({ description: 'The receiver accepted the record' }) delivered: boolean;
  @ApiProperty({
    // OpenAPI 3.0: `nullable` beside a type, in the first branch.
    oneOf: [{ type: 'integer', nullable: true }, { type: 'string' }],
    example: 200,
    description:
      "The receiver's HTTP status, the SMTP reply code, `confirmed` (the broker confirmed it) or `written` " +
      '(a file, or an `.eml` file without MAIL_URL); null when nothing answered',
  })
  status: number | string | null;
  @ApiProperty() duration_ms: number;
  @ApiProperty({ description: "The first 500 characters of the receiver's answer, the SMTP reply, or why it failed" })
  answer: string;
}

export class CampaignDestinationResponse {
  @ApiProperty() id: number;
  @ApiProperty() tenant_id: number;
  @ApiProperty() campaign_id: number;
  @ApiProperty() destination_id: number;
  @ApiProperty({ type: Number, nullable: true }) treatment_group_id: number | null;
  @ApiProperty({
    description: 'JSON text, as sent: `{"<target>": <source>}` (docs/destinations.md#attribute-mapping)',
    example: '{"email":"email","profile.first":"first_name","tier":{"field":"attributes.tier","default":"basic"}}',
  })
  attribute_mapping: string;
  @ApiProperty() is_active: boolean;
  @ApiProperty(DELIVERABLE) deliverable: boolean;
  @ApiProperty({
    type: [ProblemResponse],
    description: "Its own (`attribute_mapping.<target>`), then its destination's (`destination.<field>`)",
  })
  problems: ProblemResponse[];
  @ApiProperty({ type: DestinationResponse }) destination: DestinationResponse;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) created_at: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) updated_at: string | null;
}

/** A destination's answer: `problems` found without the network (the address policy is added by the service). */
export const toDestinationResponse = (row: Destination, problems: Problem[] = []): DestinationResponse =>
  recordFields(row, {
    name: row.name,
    description: row.description,
    destination_type: row.destination_type,
    connection_details: maskSecrets(row.connection_details),
    is_active: row.is_active,
    deliverable: problems.length === 0,
    problems: [...problems],
    last_success_at: toIso(row.last_success_at),
    last_failure_at: toIso(row.last_failure_at),
    last_error: row.last_error,
    consecutive_failures: row.consecutive_failures ?? 0,
  });

/** The link record with the destination's record inside it, and the link's problems (Deliverability.link). */
export const toCampaignDestinationResponse = (
  link: CampaignDestination,
  destination: DestinationResponse,
  problems: Problem[] = [],
): CampaignDestinationResponse =>
  recordFields(link, {
    campaign_id: link.campaign_id,
    destination_id: link.destination_id,
    treatment_group_id: link.treatment_group_id,
    attribute_mapping: link.attribute_mapping,
    is_active: link.is_active,
    deliverable: problems.length === 0,
    problems: [...problems],
    destination,
  });
