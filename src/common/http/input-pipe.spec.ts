import type { ValidationError } from '@nestjs/common';
import { ValidationFailed } from './api-exception.js';
import { fieldErrorsOf, InputPipe } from './input-pipe.js';

describe('validation errors', () => {
  it('flattens nested errors to dotted keys', () => {
    const errors: ValidationError[] = [
      { property: 'name', constraints: { isDefined: 'The name field is required.' }, children: [] },
      {
        property: 'rules',
        children: [
          {
            property: '0',
            children: [{ property: 'rule_value', constraints: { maxLength: 'too long' }, children: [] }],
          },
        ],
      },
    ];
    expect(fieldErrorsOf(errors)).toEqual({
      name: ['The name field is required.'],
      'rules.0.rule_value': ['too long'],
    });
  });

  it('summarises as the first message plus the count of the others', () => {
    expect(ValidationFailed.summary({})).toBe('The given data was invalid.');
    expect(ValidationFailed.summary({ a: ['one'] })).toBe('one');
    expect(ValidationFailed.summary({ a: ['one'], b: ['two'] })).toBe('one (and 1 more error)');
    expect(ValidationFailed.summary({ a: ['one', 'two'], b: ['three'] })).toBe('one (and 2 more errors)');
  });
});

describe('InputPipe', () => {
  const pipe = new InputPipe();

  it('hands a path parameter on as sent, for its own pipe to read', async () => {
    for (const sent of ['1', '01', '+1', '1.0', '1e0', ' 1', '0x1', 'abc']) {
      await expect(pipe.transform(sent, { type: 'param', metatype: Number, data: 'id' })).resolves.toBe(sent);
    }
  });

  it('still converts a query parameter declared as a number', async () => {
    await expect(pipe.transform('7', { type: 'query', metatype: Number, data: 'limit' })).resolves.toBe(7);
  });
});
