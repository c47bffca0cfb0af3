/** The token of an `Authorization: Bearer <token>` header, if there is one. */
export function bearerToken(req: { headers: Record<string, string | string[] | undefined> }): string | undefined {
  const header = req.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  return match?.[1];
}
