import { applyDecorators, type Type } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { ApiEnvelope } from './api-envelope.decorator.js';

/**
 * The OpenAPI side of a route, one decorator per kind of answer: summary plus success envelope
 * (the error answers are added to every operation by the document builder). They document only:
 * what a route does at run time (its status, conditional requests, idempotent replays) is declared
 * by the decorators of src/common/http/route-behaviour.ts. Verb, path and permission stay on the
 * route itself, where a reader looks for them.
 */
export const ApiList = (response: Type<unknown>, summary: string) =>
  applyDecorators(ApiOperation({ summary }), ApiEnvelope(response, { list: 'page' }));

export const ApiRead = (response: Type<unknown>, summary: string) =>
  applyDecorators(ApiOperation({ summary }), ApiEnvelope(response));

/** The 201 answer with the created record (the route answers 201: SuccessStatus(201)). */
export const ApiCreate = (response: Type<unknown>, summary: string) =>
  applyDecorators(ApiOperation({ summary }), ApiEnvelope(response, { status: 201 }));

export const ApiUpdate = (response: Type<unknown>, summary: string) =>
  applyDecorators(ApiOperation({ summary }), ApiEnvelope(response));

/** Answers 200 with `data: null`. */
export const ApiDelete = (summary: string) => applyDecorators(ApiOperation({ summary }), ApiEnvelope(null));
