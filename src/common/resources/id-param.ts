import { Injectable, Param, applyDecorators, type PipeTransform } from '@nestjs/common';
import { ApiParam } from '@nestjs/swagger';
import { RecordNotFound } from '../http/api-exception.js';

/** A path id must be a positive integer; anything else names no record (404, API-CONVENTIONS §3). */
@Injectable()
export class ParseIdPipe implements PipeTransform<string, number> {
  transform(value: string): number {
    if (!/^[1-9]\d{0,15}$/.test(value) || !Number.isSafeInteger(Number(value))) throw new RecordNotFound();
    return Number(value);
  }
}

/** `@IdParam('id') id: number`: a validated path id. */
export const IdParam = (name: string) => Param(name, ParseIdPipe);

/** Documents a path id on a method (use with IdParam). */
export const ApiIdParam = (name: string, description?: string) =>
  applyDecorators(ApiParam({ name, type: 'integer', description: description ?? 'Record id (positive integer)' }));
