import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsDefined } from 'class-validator';
import { CustomerDto } from './customer.dto.js';

export const MAX_BATCH_ITEMS = 1000;

/** `items`: an array of 1 to 1,000 entries. Each entry is checked on its own (a bad one fails alone). */
const BatchItems = () =>
  applyDecorators(
    IsDefined({ message: 'The items field is required.' }),
    IsArray({ message: 'The items field must be an array.' }),
    ArrayMinSize(1, { message: 'The items field must have at least 1 items.' }),
    ArrayMaxSize(MAX_BATCH_ITEMS, { message: `The items field must not have more than ${MAX_BATCH_ITEMS} items.` }),
    ApiProperty({
      type: CustomerDto,
      isArray: true,
      minItems: 1,
      maxItems: MAX_BATCH_ITEMS,
      description:
        'Each item has the fields and rules of `POST /api/customers`. An item whose `external_id` names a customer ' +
        'of the tenant updates the fields it sends; any other item creates a customer.',
    }),
  );

export class CustomerBatchDto {
  @BatchItems()
  items: unknown[];
}

export const BATCH_STATUSES = ['created', 'updated', 'unchanged', 'failed'] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

export class CustomerBatchResult {
  @ApiProperty({ description: 'Position of the item in `items`', example: 0 })
  index: number;

  @ApiProperty({ enum: BATCH_STATUSES })
  status: BatchStatus;

  @ApiProperty({ type: Number, nullable: true, description: 'The customer; null when the item failed' })
  id: number | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'array', items: { type: 'string' } },
    description: "Only on `failed`: the item's errors by field, as the `errors` of a 422 of `POST /api/customers`",
    example: { email: ['The email field must be a valid email address.'] },
  })
  errors?: Record<string, string[]>;
}

export class CustomerBatchCounts {
  @ApiProperty() created: number;
  @ApiProperty() updated: number;
  @ApiProperty() unchanged: number;
  @ApiProperty() failed: number;
}
