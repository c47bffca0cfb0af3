import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { DELIVERY_SOURCE_LIST, QUEUE_LIST } from './background-work.js';
import { CHANGE_RECORDER_LIST, NUMBERING_LISTENER_LIST, REDACTION_LISTENER_LIST } from './side-effects.js';

const SRC = __dirname;

/** Every source file of src/ but the tests, as [path relative to src, text]. */
function sources(dir = SRC): [string, string][] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry): [string, string][] => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    if (!entry.name.endsWith('.ts') || entry.name.endsWith('.spec.ts')) return [];
    return [[relative(SRC, path), readFileSync(path, 'utf8')]];
  });
}

/** The classes of the sources that implement `contract`, by name. */
function implementers(contract: string): string[] {
  const pattern = new RegExp(`class (\\w+)[^{]*\\bimplements\\b[^{]*\\b${contract}\\b`, 'g');
  return sources().flatMap(([, text]) => [...text.matchAll(pattern)].map((match) => match[1]));
}

/** Where a token is provided (`provide: TOKEN`), file by file. */
function providersOf(token: string): string[] {
  return sources()
    .filter(([, text]) => new RegExp(`provide:\\s*${token}\\b`).test(text))
    .map(([path]) => path);
}

const names = (list: { name: string }[]) => list.map((type) => type.name).sort();

describe('side effects are wired in src/side-effects.ts only', () => {
  it.each([
    ['ChangeRecorder', CHANGE_RECORDER_LIST],
    ['NumberingListener', NUMBERING_LISTENER_LIST],
    ['RedactionListener', REDACTION_LISTENER_LIST],
  ])('every %s is listed there, and nothing else is', (contract, listed) => {
    expect(implementers(contract).sort()).toEqual(names(listed));
  });

  it.each(['CHANGE_RECORDERS', 'NUMBERING_EFFECTS', 'REDACTION_LISTENERS'])(
    '%s is provided there and nowhere else',
    (token) => {
      expect(providersOf(token)).toEqual(['side-effects.ts']);
    },
  );

  it('no module registers an effect from its own code (no on...() registration method is left)', () => {
    const registrations = sources()
      .filter(([path]) => path !== 'side-effects.ts')
      .flatMap(([path, text]) => [...text.matchAll(/\.(onNumbered|onRedacted|onCommitted)\(/g)].map(() => path));
    expect(registrations).toEqual([]);
  });
});

describe('background work is listed in src/background-work.ts', () => {
  it('every JobHandler is a queue of QUEUE_LIST', () => {
    expect(implementers('JobHandler').sort()).toEqual(names(QUEUE_LIST));
  });

  it('JOB_HANDLERS is provided there and nowhere else', () => {
    expect(providersOf('JOB_HANDLERS')).toEqual(['background-work.ts']);
  });

  it("every DeliverySource (of the destinations' lanes) is listed in DELIVERY_SOURCE_LIST, provided there only", () => {
    expect(implementers('DeliverySource').sort()).toEqual(names(DELIVERY_SOURCE_LIST));
    expect(providersOf('DELIVERY_SOURCES')).toEqual(['background-work.ts']);
  });
});
