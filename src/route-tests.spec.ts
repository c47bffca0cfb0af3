import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Every route's tests are found from its operation id: some describe or it block of an e2e or
 * property spec (test/**\/*.e2e-spec.ts, test/**\/*.property-spec.ts) is titled with it, the ids
 * first and then a colon, e.g. `describe('createCampaign: POST /api/campaign-groups/{group_id}/campaigns')`
 * or `describe('getUser, updateUser: ...')`. `grep -rn "createCampaign[,:]" test` finds them.
 */
const root = join(__dirname, '..');

type Operation = { operationId?: string };

function operationIds(): string[] {
  const document = JSON.parse(readFileSync(join(root, 'openapi.json'), 'utf8')) as {
    paths: Record<string, Record<string, Operation>>;
  };
  return Object.values(document.paths)
    .flatMap((item) => Object.values(item))
    .map((operation) => operation.operationId)
    .filter((id): id is string => typeof id === 'string');
}

function specFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return specFiles(path);
    return /\.(e2e|property)-spec\.ts$/.test(entry.name) ? [path] : [];
  });
}

/**
 * The first argument of describe, it and test calls (also `.each(...)(`), when it is a string or
 * template literal; a template's `${...}` stays as written.
 */
const TITLE =
  /\b(?:describe|it|test)(?:\.(?:each|concurrent|failing|only|skip)(?:\((?:[^()]|\([^()]*\))*\))?)*\(\s*(?:'((?:\\.|[^'\\])*)'|"((?:\\.|[^"\\])*)"|`((?:\\.|[^`\\])*)`)/g;

function titles(source: string): string[] {
  return [...source.matchAll(TITLE)].map((match) => match[1] ?? match[2] ?? match[3]);
}

/** The words before a title's first colon: `getUser, updateUser: ...` names getUser and updateUser. */
function namedIds(title: string): string[] {
  const colon = title.indexOf(':');
  return colon < 0
    ? []
    : title
        .slice(0, colon)
        .split(/[^A-Za-z0-9_]+/)
        .filter(Boolean);
}

describe('route tests are found from operation ids', () => {
  const ids = operationIds();
  const files = specFiles(join(root, 'test'));
  const named = new Map<string, string[]>();
  for (const file of files) {
    for (const title of titles(readFileSync(file, 'utf8'))) {
      for (const id of namedIds(title)) named.set(id, [...(named.get(id) ?? []), relative(root, file)]);
    }
  }

  it('reads the operations and the specs', () => {
    expect(ids.length).toBeGreaterThan(50);
    expect(new Set(ids).size).toBe(ids.length);
    expect(files.map((file) => relative(root, file))).toEqual(
      expect.arrayContaining(['test/campaigns.e2e-spec.ts', 'test/property/write-operations.property-spec.ts']),
    );
    expect(titles(`describe.each(rows)('createX: POST /x', () => { it(\`getX, updateX: \${y}\`, f) })`)).toEqual([
      'createX: POST /x',
      'getX, updateX: ${y}',
    ]);
    expect(namedIds('getX, updateX: PUT /x/{id}')).toEqual(['getX', 'updateX']);
    expect(namedIds('login limiter')).toEqual([]);
  });

  it('titles a describe or it block of some spec with every operation id of openapi.json', () => {
    expect(ids.filter((id) => !named.has(id))).toEqual([]);
  });

  it('names no operation id in a title that openapi.json lacks', () => {
    const known = new Set(ids);
    // An operation id is camelCase; a renamed or removed operation leaves its old id behind.
    const unknown = [...named]
      .filter(([word]) => /^[a-z]+[A-Z][A-Za-z0-9]*$/.test(word) && !known.has(word))
      .map(([word, where]) => `${word} (${[...new Set(where)].join(', ')})`);
    expect(unknown).toEqual([]);
  });
});
