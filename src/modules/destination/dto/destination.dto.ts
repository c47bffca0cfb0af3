import { ListQueryDto } from '../../../common/resources/list-query.dto.js';
import { BooleanField, IdField, JsonStringField, StringField } from '../../../common/fields/fields.js';

export class DestinationDto {
  @StringField({ max: 255, example: 'Newsletter ESP' })
  name: string;

  @StringField({ required: false, nullable: true })
  description?: string | null;

  @StringField({
    max: 255,
    example: 'webhook',
    description:
      'Any text is stored; the service delivers to `webhook`, `email`, `amqp` and `file` (docs/destinations.md)',
  })
  destination_type: string;

  @JsonStringField({
    example:
      '{"url":"https://hooks.example.com/campaigns","headers":{"Authorization":"Bearer s3cr3t"},"batch_size":100}',
    description:
      'JSON text, stored as sent except its secrets, which are kept encrypted and answered as `"********"`. ' +
      '`webhook`: `url`, `method` (POST, PUT), `headers`, `batch_size` (1-1000, 100), `rate_per_second` (10), ' +
      '`concurrency` (1-16, 2), `timeout_ms` (15000), `secret` (whsec_; generated when absent). `email`: `from`, ' +
      '`reply_to`, `subject`, `html`, `text` (Liquid), `smtp_url` (default MAIL_URL), `rate_per_second` (10), ' +
      '`list_id`. `amqp`: `url` (amqp:// or amqps://), `exchange`, `routing_key` (Liquid; default the action), ' +
      '`queue`, `binding_key` (#). `file`: `format` (csv, ndjson), `mode` (all, changes). Sending `"********"` back ' +
      'keeps a stored secret.',
  })
  connection_details: string;

  @BooleanField({ required: false })
  is_active?: boolean;
}

export class DestinationListQueryDto extends ListQueryDto {
  @StringField({ required: false, max: 255, description: 'Substring of the name' })
  q?: string;

  @BooleanField({ required: false })
  is_active?: boolean;
}

export class CampaignDestinationDto {
  @IdField({ description: 'A live destination of the same tenant' })
  destination_id: number;

  @IdField({ required: false, nullable: true, description: 'A treatment group of the same campaign' })
  treatment_group_id?: number | null;

  @JsonStringField({
    example: '{"email":"email","profile.first":"first_name","tier":{"field":"attributes.tier","default":"basic"}}',
    description:
      'JSON text, stored as sent: `{"<target>": <source>}`. A source is a customer field (`email`, `first_name`, ...), ' +
      '`"attributes.<path>"`, `"campaign.name"`, `"treatment_group.name"`, `{"template": "Liquid"}`, ' +
      '`{"value": <JSON>}` or `{"field": "...", "default": <JSON>}`; a dotted target builds nested objects.',
  })
  attribute_mapping: string;

  @BooleanField({ required: false })
  is_active?: boolean;
}

/** `POST /api/destinations/{id}/test`: which association's mapping and which customer (both optional). */
export class DestinationTestDto {
  @IdField({
    required: false,
    description:
      "A campaign destination of this destination: the record is mapped with its mapping, and the campaign and treatment group are the templates' (an email destination needs one)",
  })
  campaign_destination_id?: number;

  @IdField({ required: false, description: "The customer mapped (default: the tenant's most recently updated one)" })
  customer_id?: number;
}
