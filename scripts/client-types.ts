export const CLIENT_TYPES_FILE = 'client/schema.ts';

export const CLIENT_TYPES_HEADER =
  '// Generated from openapi.json by `npm run openapi` (openapi-typescript): do not edit.\n' +
  '// A test fails when this file and openapi.json disagree.\n\n';

/**
 * The typed client's types (openapi-typescript), generated from the OpenAPI document; `npm run openapi`
 * writes them. openapi-typescript is an ES module: loaded on demand, so importing this file costs nothing.
 */
export async function clientTypes(document: object): Promise<string> {
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  const ast = await openapiTS(document as Parameters<typeof openapiTS>[0]);
  return CLIENT_TYPES_HEADER + astToString(ast);
}
