import type { Request } from 'express';

/** The token of an `Authorization: Bearer <token>` header, if there is one. */
export function bearerToken(req: Request): string | undefined {
  const header = req.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  return match?.[1];
}
