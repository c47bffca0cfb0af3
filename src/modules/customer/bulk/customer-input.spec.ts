import 'reflect-metadata';
import { ValidationFailed } from '../../../common/http/api-exception.js';
import { InputPipe } from '../../../common/http/input-pipe.js';
import { CustomerDto } from '../dto/customer.dto.js';
import { checkCustomerItem, CUSTOMER_SURE_INPUT, surelyValid, throughDto } from './customer-input.js';

const TEXT = [
  undefined,
  null,
  '',
  ' ',
  'crm-1',
  'x'.repeat(255),
  'x'.repeat(256),
  '😀'.repeat(200),
  '😀'.repeat(256),
  'lone \ud800 surrogate',
  '\udc00',
  7,
  true,
  {},
  [],
];
const EMAIL = [
  undefined,
  null,
  'Ada@Example.com',
  '  ada@example.com ',
  'bad',
  '',
  'a@b',
  `${'a'.repeat(64)}@${'d'.repeat(63)}.${'e'.repeat(63)}.${'f'.repeat(60)}.com`,
  `${'a'.repeat(250)}@x.com`,
  5,
  'ADA@EXAMPLE.COM',
  'a b@example.com',
  'ada\ud800@example.com',
];
const ATTRIBUTES = [undefined, null, '{"a":1}', '[]', '', ' ', 'x', '"s"', '1', 1, {}, '{"a":', '{"a":"\ud800"}'];
const ACTIVE = [undefined, true, false, 1, 0, '1', '0', 'true', 'false', 'yes', null, 2, ''];

/** A deterministic pseudo-random pick, so a failure names a reproducible item. */
function* items(count: number) {
  let seed = 42;
  const pick = <T>(pool: T[]) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return pool[seed % pool.length];
  };
  for (let i = 0; i < count; i++) {
    const item: Record<string, unknown> = {
      external_id: pick(TEXT),
      first_name: pick(TEXT),
      last_name: pick(TEXT),
      email: pick(EMAIL),
      phone: pick(TEXT),
      attributes: pick(ATTRIBUTES),
      is_active: pick(ACTIVE),
      tenant_id: 99,
    };
    for (const key of Object.keys(item)) if (item[key] === undefined) delete item[key];
    yield item;
  }
}

describe('checkCustomerItem', () => {
  it('gives the verdict, values and messages of CustomerDto for any item', () => {
    let fast = 0;
    for (const item of items(20_000)) {
      const expected = throughDto(item);
      if (surelyValid(item)) fast++;
      expect({ item, checked: checkCustomerItem(item) }).toEqual({ item, checked: expected });
    }
    // The plain check decides a good share on its own (the pools are mostly invalid on purpose).
    expect(fast).toBeGreaterThan(60);
  });

  it('passes valid items through the plain check, transformed as the DTO does', () => {
    const item = { external_id: 'crm-1', email: ' Ada@Example.COM ', is_active: '0', attributes: '[]', id: 5 };
    expect(surelyValid(item)).toEqual({
      external_id: 'crm-1',
      email: 'ada@example.com',
      is_active: false,
      attributes: '[]',
    });
  });

  it('fails what is not an object', () => {
    for (const item of [null, 1, 'x', [], true]) {
      expect(checkCustomerItem(item)).toEqual({ ok: false, errors: { item: ['The item must be an object.'] } });
    }
  });
});

describe('CUSTOMER_SURE_INPUT in the validation pipe', () => {
  const metadata = { type: 'body' as const, metatype: CustomerDto };
  const settle = (pipe: InputPipe, body: unknown) =>
    pipe.transform(body, metadata).then(
      (dto) => ({ dto: { ...(dto as object) }, type: (dto as object).constructor }),
      (error: unknown) => ({ error: error instanceof ValidationFailed ? error.body : error }),
    );

  it('gives the answer the DTO alone gives, for any body', async () => {
    const quick = new InputPipe([CUSTOMER_SURE_INPUT]);
    const dtoOnly = new InputPipe();
    for (const body of [...items(3_000), undefined, null, [], 'x', {}]) {
      expect({ body, answer: await settle(quick, body) }).toStrictEqual({ body, answer: await settle(dtoOnly, body) });
    }
  });

  it('answers a body it is sure of without class-validator', async () => {
    const check = jest.spyOn(CUSTOMER_SURE_INPUT, 'check');
    const dto = await new InputPipe([CUSTOMER_SURE_INPUT]).transform({ email: 'Ada@Example.com', x: 1 }, metadata);
    expect(check).toHaveReturnedWith(dto);
    expect(dto).toBeInstanceOf(CustomerDto);
    expect({ ...(dto as object) }).toEqual({ email: 'ada@example.com' });
    check.mockRestore();
  });
});
