import { loadDataField, loadDataStatement, loadDataText } from './load-data.js';

describe('LOAD DATA text', () => {
  it('writes each kind of value as the server reads back the value an INSERT binds', () => {
    expect(loadDataField(null)).toBe('\\N');
    expect(loadDataField(undefined)).toBe('\\N');
    expect(loadDataField('')).toBe('');
    expect(loadDataField('\\N')).toBe('\\\\N');
    expect(loadDataField('a\tb\nc\\d\0e\rf')).toBe('a\\tb\\nc\\\\d\\0e\rf');
    expect(loadDataField(12.5)).toBe('12.5');
    expect(loadDataField(true)).toBe('1');
    expect(loadDataField(false)).toBe('0');
    expect(loadDataField(new Date('2026-03-04T05:06:07.123Z'))).toBe('2026-03-04 05:06:07.123');
    expect(loadDataField(new Date(Number.NaN))).toBe('\\N');
  });

  it('writes one line per row, fields apart by tabs, in UTF-8', () => {
    expect(
      loadDataText([
        ['é', null],
        [1, 'x\ty'],
      ]).toString('utf8'),
    ).toBe('é\t\\N\n1\tx\\ty\n');
    expect(loadDataText([])).toHaveLength(0);
  });

  it('names the table and columns, and the format it writes', () => {
    expect(loadDataStatement('events', ['tenant_id', 'data'])).toBe(
      "LOAD DATA LOCAL INFILE 'rows' INTO TABLE `events` CHARACTER SET utf8mb4" +
        " FIELDS TERMINATED BY '\\t' ENCLOSED BY '' ESCAPED BY '\\\\' LINES TERMINATED BY '\\n' (`tenant_id`, `data`)",
    );
  });
});
