import fc from 'fast-check';
import { format } from 'mysql2';
import { queryFormat, statementText, type SqlValue } from './sql-text.js';

const value: fc.Arbitrary<SqlValue> = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.constantFrom("it's", '\\', '?', '??', "'?'", '--', '/*', '\0\n\r\x1a"'),
  fc.integer(),
  fc.double({ noNaN: true }),
  fc.boolean(),
  fc.constant(null),
  fc.date({ min: new Date('1970-01-02T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true }),
);
/** Pieces of SQL between placeholders, some of which the split must not trust. */
const piece = fc.oneof(
  fc.constantFrom(
    'INSERT INTO `t` (`a`, b) VALUES (',
    ', ',
    '), (',
    ')',
    " 'default' ",
    ' WHERE `a` = ',
    ' AND b IN (',
  ),
  fc.constantFrom(
    " 'what?' ",
    ' -- why? ',
    ' /* ? */ ',
    ' "q?" ',
    ' `c?` ',
    ' `c``d` ',
    ' `e\\` ',
    " 'it''s' ",
    " '\\'' ",
    ' ?? ',
    ' # ? ',
  ),
);

describe('statementText', () => {
  it('writes the values in exactly as mysql2 format does, whatever the statement and the values', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(piece, value), { maxLength: 12 }), piece, (pairs, last) => {
        const sql = pairs.map(([p]) => `${p}?`).join('') + last;
        const values = pairs.map(([, v]) => v);
        expect(statementText(sql, values)).toBe(format(sql, values, false, 'Z'));
      }),
      { numRuns: 2000 },
    );
  });

  it('splits a plain multi-row INSERT (one literal) and escapes strings, dates, booleans and nulls', () => {
    const sql = "INSERT INTO log (name, a, b, c, d) VALUES ('default', ?, ?, ?, ?)";
    const values = ["O'Brien \\ ?", new Date('2026-11-26T14:00:00.123Z'), true, null];
    expect(statementText(sql, values)).toBe(
      "INSERT INTO log (name, a, b, c, d) VALUES ('default', 'O\\'Brien \\\\ ?', '2026-11-26 14:00:00.123', true, NULL)",
    );
  });

  it('leaves a statement whose placeholders do not match its values to format', () => {
    expect(statementText('SELECT ?, ?', [1])).toBe(format('SELECT ?, ?', [1], false, 'Z'));
  });
});

describe('queryFormat', () => {
  it('sends a statement without values as it is, and formats one with values as mysql2 does', () => {
    expect(queryFormat("SELECT '?' AS q, ?", [])).toBe("SELECT '?' AS q, ?");
    expect(queryFormat('COMMIT', undefined)).toBe('COMMIT');
    expect(queryFormat("SELECT '?' AS q, ?", ['x'], 'Z')).toBe(format("SELECT '?' AS q, ?", ['x'], false, 'Z'));
  });
});
