import { hash } from 'node:crypto';
import { ApiException } from './api-exception.js';

/**
 * Entity tags (RFC 9110 §8.8.3) of single-record answers: a hash of the record's answer (`data`),
 * so the tag changes whenever anything the answer shows changes, embedded rules and links
 * included, and a GET and a PUT of the same state carry the same tag.
 */
export function etagOf(data: unknown): string {
  return etagOfJson(JSON.stringify(data ?? null));
}

/** The entity tag of an answer already serialised as JSON. */
export function etagOfJson(json: string): string {
  return `"${hash('sha1', json, 'base64url')}"`;
}

function tagsOf(header: string): string[] {
  return header.split(',').map((tag) => tag.trim());
}

/** If-None-Match (weak comparison): true when the client's copy is current, so a GET answers 304. */
export function noneMatchHolds(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return tagsOf(header).some((tag) => tag === '*' || tag.replace(/^W\//, '') === etag);
}

export class PreconditionFailed extends ApiException {
  constructor() {
    super(412, {
      message: 'The record has changed since it was read: If-Match does not match its current ETag.',
    });
  }
}

/**
 * If-Match (strong comparison) on PUT and DELETE, against the record's current answer, read in
 * the write's transaction after the row is locked. Throws 412 when it does not match.
 */
export function assertIfMatch(header: string | undefined, current: unknown): void {
  if (header === undefined) return;
  const etag = etagOf(current);
  if (!tagsOf(header).some((tag) => tag === '*' || tag === etag)) throw new PreconditionFailed();
}
