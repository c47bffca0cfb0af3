import { applyDecorators, HttpCode, type Type } from '@nestjs/common';
import { ApiHeader, ApiOperation, ApiResponse } from '@nestjs/swagger';
import { Conditional } from '../http/envelope.js';
import { ApiEnvelope } from './api-envelope.decorator.js';
import { ErrorBodyDto } from './common-responses.js';

/**
 * The OpenAPI side of a route, one decorator per kind of answer: summary plus success envelope
 * (the error answers are added to every operation by the document builder). Verb, path and
 * permission stay on the route itself, where a reader looks for them.
 */
export const ApiList = (response: Type<unknown>, summary: string) =>
  applyDecorators(ApiOperation({ summary }), ApiEnvelope(response, { list: 'page' }));

export const ETAG_HEADERS = {
  ETag: {
    description: 'Tag of the record as answered; changes whenever the record (or what it embeds) changes.',
    schema: { type: 'string' as const },
  },
};

/** GET of one record: ETag on the answer, If-None-Match answers 304. */
export const ReadPreconditions = () =>
  applyDecorators(
    Conditional(),
    ApiHeader({
      name: 'If-None-Match',
      required: false,
      description: 'ETag(s) of a copy the client holds: 304 without a body while the record still has one of them.',
    }),
    ApiResponse({
      status: 304,
      description: 'Not Modified: the copy the client holds is current',
      headers: ETAG_HEADERS,
    }),
  );

const ifMatch = (what: string) =>
  applyDecorators(
    ApiHeader({
      name: 'If-Match',
      required: false,
      description: `ETag of the record as the client last read it: ${what} only while the record still has it (412 otherwise).`,
    }),
    ApiResponse({
      status: 412,
      description: 'Precondition Failed: the record changed since the client read it (If-Match)',
      type: ErrorBodyDto,
    }),
  );

/** PUT of one record: ETag on the answer, If-Match answers 412 when the record changed meanwhile. */
export const UpdatePreconditions = () => applyDecorators(Conditional(), ifMatch('updated'));

/** DELETE of one record: If-Match answers 412 when the record changed meanwhile. */
export const DeletePreconditions = () => ifMatch('deleted');

export const ApiRead = (response: Type<unknown>, summary: string) =>
  applyDecorators(ApiOperation({ summary }), ApiEnvelope(response, { headers: ETAG_HEADERS }), ReadPreconditions());

/** Answers 201 with the created record. */
export const ApiCreate = (response: Type<unknown>, summary: string) =>
  applyDecorators(HttpCode(201), ApiOperation({ summary }), ApiEnvelope(response, { status: 201 }));

export const ApiUpdate = (response: Type<unknown>, summary: string) =>
  applyDecorators(ApiOperation({ summary }), ApiEnvelope(response, { headers: ETAG_HEADERS }), UpdatePreconditions());

/** Answers 200 with `data: null`. */
export const ApiDelete = (summary: string) =>
  applyDecorators(ApiOperation({ summary }), ApiEnvelope(null), DeletePreconditions());
