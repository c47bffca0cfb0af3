import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class PageMetaDto {
  @ApiProperty({ example: 25, minimum: 1, maximum: 100 })
  limit: number;

  @ApiProperty({ type: String, nullable: true, description: 'Opaque cursor of the next page; null on the last page.' })
  next_cursor: string | null;

  @ApiProperty()
  has_more: boolean;

  @ApiPropertyOptional({ description: 'Present when the request asked for `with_total=true`.' })
  total?: number;
}

export class ErrorBodyDto {
  @ApiProperty({ example: 'Unauthenticated.' })
  message: string;
}

export class ValidationErrorBodyDto {
  @ApiProperty({ example: 'The name field is required. (and 1 more error)' })
  message: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'array', items: { type: 'string' } },
    example: {
      name: ['The name field is required.'],
      'rules.0.rule_value': ['The rule value must not be greater than 255 characters.'],
    },
  })
  errors: Record<string, string[]>;
}
