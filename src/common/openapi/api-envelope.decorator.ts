import { applyDecorators, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, getSchemaPath } from '@nestjs/swagger';
import type { OpenAPIObject } from '@nestjs/swagger';

type SchemaObject = NonNullable<NonNullable<OpenAPIObject['components']>['schemas']>[string];
type ReferenceObject = SchemaObject;
import { PageMetaDto } from './common-responses.js';

interface EnvelopeOptions {
  status?: number;
  description?: string;
  /** The data is an array of the model (with `meta` when paginated). */
  list?: 'array' | 'page';
  /** `data` is null (DELETE answers). */
  nullData?: boolean;
  /** The `meta` of a page when it is not the lists' PageMetaDto (the change feed's), or of a single answer (a merge's). */
  meta?: Type<unknown>;
  /** Response headers of the success answer (ETag). */
  headers?: Record<string, { description: string; schema: { type: 'string' } }>;
}

/** Documents a success answer in the §2 envelope: `{code, message, data}` (lists add `meta`). */
export function ApiEnvelope(model: Type<unknown> | null, options: EnvelopeOptions = {}) {
  const status = options.status ?? 200;
  const data =
    model === null || options.nullData
      ? { type: 'object', nullable: true, example: null }
      : options.list
        ? { type: 'array', items: { $ref: getSchemaPath(model) } }
        : { $ref: getSchemaPath(model) };
  const properties: Record<string, SchemaObject | ReferenceObject> = {
    code: { type: 'integer', example: status },
    message: { type: 'string' },
    data,
  };
  const required = ['code', 'message', 'data'];
  if (options.list === 'page' || options.meta) {
    properties.meta = { $ref: getSchemaPath(options.meta ?? PageMetaDto) };
    required.push('meta');
  }
  return applyDecorators(
    ApiExtraModels(options.meta ?? PageMetaDto, ...(model ? [model] : [])),
    ApiResponse({
      status,
      description: options.description ?? (status === 201 ? 'Created' : 'OK'),
      ...(options.headers ? { headers: options.headers } : {}),
      schema: { type: 'object', required, properties },
    }),
  );
}
