import fc from 'fast-check';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ValidationFailed } from '../http/api-exception.js';
import { InputPipe } from '../http/input-pipe.js';
import { ListQueryDto } from './list-query.dto.js';
import { PAGE_QUERY_SURE_INPUT } from './page-query.js';

/** Every list's query DTO in the source: ListQueryDto and each class that extends it. */
async function listQueryDtos(): Promise<(new () => object)[]> {
  const files = [
    join(__dirname, 'list-query.dto.ts'),
    ...readdirSync(join(__dirname, '..', '..', 'modules'), { recursive: true, encoding: 'utf8' })
      .filter((file) => /(^|\/)dto\/[^/]+\.dto\.ts$/.test(file))
      .map((file) => join(__dirname, '..', '..', 'modules', file)),
  ];
  const dtos = new Set<new () => object>();
  for (const file of files) {
    for (const value of Object.values((await import(file)) as Record<string, unknown>)) {
      if (typeof value === 'function' && (value === ListQueryDto || value.prototype instanceof ListQueryDto)) {
        dtos.add(value as new () => object);
      }
    }
  }
  return [...dtos];
}

let dtos: (new () => object)[] = [];
beforeAll(async () => {
  dtos = await listQueryDtos();
});

const settle = (pipe: InputPipe, query: unknown, metatype: new () => object) =>
  pipe.transform(query, { type: 'query', metatype }).then(
    (dto) => ({ dto: { ...(dto as object) }, type: (dto as object).constructor }),
    (error: unknown) => ({ error: error instanceof ValidationFailed ? error.body : error }),
  );

const limits = fc.oneof(
  fc.integer({ min: -5, max: 120 }).map(String),
  fc.constantFrom('', '0', ' 5', '05', '1.0', '1e1', '+3', '99', '100', '101', '999', '1000', '0x10'),
  fc.string({ maxLength: 4 }),
  fc.array(fc.constantFrom('1', '25'), { minLength: 2, maxLength: 2 }),
);
const cursors = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9_-]{0,40}$/),
  fc.constantFrom('a'.repeat(1024), 'a'.repeat(1025), 'ab=', 'a b', '😀'),
  fc.string({ maxLength: 12 }),
);
const queries = fc.oneof(
  // What the check takes: limit and cursor alone, each at its edges as often as not.
  fc.record({ limit: limits, cursor: cursors }, { requiredKeys: [] }),
  fc.record(
    {
      limit: limits,
      cursor: cursors,
      sort: fc.constantFrom('-id', 'name', 'x'),
      q: fc.string({ maxLength: 3 }),
      with_total: fc.constantFrom('true', 'no'),
    },
    { requiredKeys: [] },
  ),
);

describe('PAGE_QUERY_SURE_INPUT in the validation pipe', () => {
  it('finds the list query DTOs it covers', () => {
    expect(dtos.length).toBeGreaterThan(8);
  });

  it('gives the answer each list query DTO alone gives, for any query', async () => {
    const quick = new InputPipe([PAGE_QUERY_SURE_INPUT]);
    const dtoOnly = new InputPipe();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...dtos), queries, async (metatype, query) => {
        expect({ query, answer: await settle(quick, query, metatype) }).toStrictEqual({
          query,
          answer: await settle(dtoOnly, query, metatype),
        });
      }),
      { numRuns: 3_000 },
    );
  });

  it('answers a page query without class-validator, as an instance of the route DTO', async () => {
    const check = jest.spyOn(PAGE_QUERY_SURE_INPUT, 'check');
    const pipe = new InputPipe([PAGE_QUERY_SURE_INPUT]);
    for (const metatype of dtos) {
      const dto = await pipe.transform({ limit: '25', cursor: 'WyJpZCIsbnVsbCwxMF0' }, { type: 'query', metatype });
      expect(check).toHaveLastReturnedWith(dto);
      expect(dto).toBeInstanceOf(metatype);
      expect({ ...(dto as object) }).toEqual({ limit: 25, cursor: 'WyJpZCIsbnVsbCwxMF0' });
    }
    check.mockRestore();
  });

  it('leaves a body of the same DTO to class-validator', async () => {
    const check = jest.spyOn(PAGE_QUERY_SURE_INPUT, 'check');
    await new InputPipe([PAGE_QUERY_SURE_INPUT]).transform({ limit: '25' }, { type: 'body', metatype: ListQueryDto });
    expect(check).not.toHaveBeenCalled();
    check.mockRestore();
  });
});
