import { Readable } from 'node:stream';
import { csvRows, type CsvRow } from './csv-rows.js';
import { KeySet } from './key-set.js';

async function rowsOf(text: string, chunkSize = 7): Promise<CsvRow[]> {
  const chunks: Buffer[] = [];
  const bytes = Buffer.from(text, 'utf8');
  for (let i = 0; i < bytes.length; i += chunkSize) chunks.push(bytes.subarray(i, i + chunkSize));
  const rows: CsvRow[] = [];
  for await (const row of csvRows(Readable.from(chunks))) rows.push(row);
  return rows;
}

describe('csvRows (csv-parse, pinned)', () => {
  it('gives each row the line it starts on, whatever the line endings and multi-line cells', async () => {
    for (const eol of ['\n', '\r\n']) {
      const text = ['\ufeffa,b', '1,x', '', `2,"two${eol}lines"`, `3,"three${eol}more${eol}lines"`, '4,y'].join(eol);
      expect(await rowsOf(text)).toEqual([
        { line: 1, cells: ['a', 'b'] },
        { line: 2, cells: ['1', 'x'] },
        { line: 4, cells: ['2', `two${eol}lines`] },
        { line: 6, cells: ['3', `three${eol}more${eol}lines`] },
        { line: 9, cells: ['4', 'y'] },
      ]);
    }
  });

  it('fails a row with a broken quote alone and reads on', async () => {
    const rows = await rowsOf('a,b\n1,"x"y\n2,"multi\nline"\n3,x"y\n4,"ok"\n5,"open\n');
    expect(rows).toEqual([
      { line: 1, cells: ['a', 'b'] },
      { line: 2, broken: expect.stringContaining('closing quote') },
      { line: 3, cells: ['2', 'multi\nline'] },
      { line: 5, broken: expect.stringContaining('does not start with one') },
      { line: 6, cells: ['4', 'ok'] },
      { line: 7, broken: expect.stringContaining('never closed') },
    ]);
  });

  it('keeps a row of the wrong length as it is (the import fails it)', async () => {
    expect(await rowsOf('a,b\n1,2,3\n4\n')).toEqual([
      { line: 1, cells: ['a', 'b'] },
      { line: 2, cells: ['1', '2', '3'] },
      { line: 3, cells: ['4'] },
    ]);
  });
});

describe('KeySet', () => {
  it('tells a key it has seen from one it has not, across growth', () => {
    const set = new KeySet();
    let added = 0;
    let again = 0;
    for (let i = 0; i < 50_000; i++) if (set.add(`key-${i}`)) added++;
    for (let i = 0; i < 50_000; i += 7) if (set.add(`key-${i}`)) again++;
    expect([added, again]).toEqual([50_000, 0]);
    expect(set.add('key-50000')).toBe(true);
    expect(set.add('')).toBe(true);
    expect(set.add('')).toBe(false);
  });
});
