/**
 * Rules, accepted values and page bodies shared by the configurations of the marketing resources'
 * specs (test/marketing-programs.e2e-spec.ts and its siblings; the driver is resource-cases.ts).
 */
import { planBody, type Body } from './marketing-factories.js';
import type { Accepted, Case } from './resource-cases.js';

/** The names of the paging test's records (each list's q and sort cases rely on them). */

export const WORDS = ['delta', 'alpha', 'echo', 'charlie', 'bravo'];
export const EMOJI_255 = '😀'.repeat(255);

export const textRules = (field: string): Case[] => [
  [`${field} missing`, { [field]: undefined }, field],
  [`${field} null`, { [field]: null }, field],
  [`${field} blank`, { [field]: '  ' }, field],
  [`${field} a number`, { [field]: 42 }, field],
  [`${field} of 256 characters`, { [field]: 'x'.repeat(256) }, field],
  [`${field} of 256 emoji`, { [field]: '😀'.repeat(256) }, field],
];

export const amountRules = (field: string, options: { required: boolean; max: number }): Case[] => [
  ...(options.required ? [[`${field} missing`, { [field]: undefined }, field] as Case] : []),
  [`${field} null`, { [field]: null }, field],
  [`${field} negative`, { [field]: -0.01 }, field],
  [`${field} negative as a string`, { [field]: '-1' }, field],
  [`${field} above the maximum`, { [field]: options.max + 0.01 }, field],
  [`${field} of 1e16`, { [field]: 1e16 }, field],
  [`${field} with 3 decimals`, { [field]: 12.345 }, field],
  [`${field} with 3 decimals as a string`, { [field]: '12.345' }, field],
  [`${field} not numeric`, { [field]: 'lots' }, field],
  [`${field} a boolean`, { [field]: true }, field],
  [`${field} an object`, { [field]: { value: 1 } }, field],
];

export const MAX_AMOUNT = 9_999_999_999_999.99;

export const planRules = (descriptionRequired: boolean): Case[] => [
  ...textRules('name'),
  ...(descriptionRequired
    ? ([
        ['description missing', { description: undefined }, 'description'],
        ['description null', { description: null }, 'description'],
        ['description a number', { description: 7 }, 'description'],
      ] as Case[])
    : ([['description a number', { description: 7 }, 'description']] as Case[])),
  ['status missing', { status: undefined }, 'status'],
  ['status null', { status: null }, 'status'],
  ['status unknown', { status: 'archived' }, 'status'],
  ['status in capitals', { status: 'Active' }, 'status'],
  ['start_date missing', { start_date: undefined }, 'start_date'],
  ['start_date null', { start_date: null }, 'start_date'],
  ['start_date not a date', { start_date: 'next spring' }, 'start_date'],
  ['start_date not on the calendar', { start_date: '2025-02-30', end_date: '2025-03-31' }, 'start_date'],
  ['start_date 29 February of a common year', { start_date: '2025-02-29', end_date: '2025-03-31' }, 'start_date'],
  ['start_date at hour 24', { start_date: '2026-03-01T24:00:00Z' }, 'start_date'],
  ['start_date a number', { start_date: 20260301 }, 'start_date'],
  ['end_date missing', { end_date: undefined }, 'end_date'],
  ['end_date null', { end_date: null }, 'end_date'],
  ['end_date not a date', { end_date: 'whenever' }, 'end_date'],
  ['end_date not on the calendar', { end_date: '2026-04-31' }, 'end_date'],
  ['end_date in month 13', { end_date: '2026-13-01' }, 'end_date'],
  ['end_date the day before start_date', { start_date: '2026-05-01', end_date: '2026-04-30' }, 'end_date'],
  [
    'end_date a second before start_date',
    { start_date: '2026-05-01T10:00:00Z', end_date: '2026-05-01T09:59:59Z' },
    'end_date',
  ],
  [
    'end_date before start_date once offsets are applied',
    { start_date: '2026-05-01T10:00:00Z', end_date: '2026-05-01T11:00:00+02:00' },
    'end_date',
  ],
  ...amountRules('budget', { required: true, max: MAX_AMOUNT }),
  ...textRules('goal'),
];

export const planAccepted: Accepted[] = [
  ['a name of 255 characters', { name: 'x'.repeat(255) }, { name: 'x'.repeat(255) }],
  ['a name of 255 emoji', { name: EMOJI_255 }, { name: EMOJI_255 }],
  ['a goal of 255 emoji', { goal: EMOJI_255 }, { goal: EMOJI_255 }],
  ['a numeric-string budget', { budget: '12.50' }, { budget: 12.5 }],
  ['a zero budget', { budget: 0 }, { budget: 0 }],
  ['the largest DECIMAL(15,2) budget', { budget: MAX_AMOUNT }, { budget: MAX_AMOUNT }],
  [
    'date-only dates',
    { start_date: '2028-02-29', end_date: '2028-03-01' },
    { start_date: '2028-02-29T00:00:00.000Z', end_date: '2028-03-01T00:00:00.000Z' },
  ],
  [
    'date-times with offsets, returned in UTC',
    { start_date: '2026-03-01T10:30:00+02:00', end_date: '2026-03-01T23:15:00-05:00' },
    { start_date: '2026-03-01T08:30:00.000Z', end_date: '2026-03-02T04:15:00.000Z' },
  ],
  [
    'end_date equal to start_date',
    { start_date: '2026-03-01', end_date: '2026-03-01T00:00:00Z' },
    { start_date: '2026-03-01T00:00:00.000Z', end_date: '2026-03-01T00:00:00.000Z' },
  ],
  ['status active', { status: 'active' }, { status: 'active' }],
  ['status inactive', { status: 'inactive' }, { status: 'inactive' }],
];

export const childAccepted: Accepted[] = [
  ['a name of 255 characters', { name: 'x'.repeat(255) }, { name: 'x'.repeat(255) }],
  ['a name of 255 emoji', { name: EMOJI_255 }, { name: EMOJI_255 }],
  ['a null description', { description: null }, { description: null }],
  ['no description', { description: undefined }, { description: null }],
];

export const planPageBody = (i: number): Body =>
  planBody({
    name: WORDS[i % 5],
    status: ['draft', 'active', 'inactive'][i % 3],
    start_date: `2026-0${1 + (i % 4)}-1${i % 3}`,
    end_date: `2026-1${i % 2}-0${1 + (i % 7)}T12:00:00Z`,
    budget: [100.5, 0, 2500, 100.5, 99.99, 7][i % 6],
  });
