import { Parser } from 'csv-parse';
import type { Readable } from 'node:stream';

/** One data row of a CSV file, or one that could not be read as CSV; `line` is where it starts (1-based). */
export type CsvRow = { line: number; cells: string[] } | { line: number; broken: string };

/** What csv-parse pushes: a row's cells with the parser's line count at its end, or a row it skipped. */
type Parsed = { cells: string[]; endLine: number } | { skipped: string; line: number };

const BROKEN_MESSAGES: Record<string, string> = {
  INVALID_OPENING_QUOTE: 'The row has a quote (") inside a cell that does not start with one.',
  CSV_INVALID_CLOSING_QUOTE: 'The row has a quoted cell with more text after its closing quote (").',
  CSV_QUOTE_NOT_CLOSED: 'The row has a quote (") that is never closed.',
};

/**
 * csv-parse with two adaptations, both covered by csv-rows.spec.ts (the version is pinned):
 * - each record carries `info.lines` as it is pushed, without the per-record `info` object
 *   (which doubles the parse time);
 * - after a closing quote followed by more text, the parser stops quoting, so that the rest of
 *   that row is skipped with it instead of swallowing the rows after it.
 */
class LineParser extends Parser {
  push(chunk: unknown, encoding?: BufferEncoding): boolean {
    if (chunk === null || !Array.isArray(chunk)) return super.push(chunk, encoding);
    return super.push({ cells: chunk as string[], endLine: this.info.lines } satisfies Parsed, encoding);
  }

  skipped(error: { code?: string } | undefined): void {
    if (error?.code === 'CSV_INVALID_CLOSING_QUOTE')
      (this as unknown as { state: { quoting: boolean } }).state.quoting = false;
    super.push({ skipped: error?.code ?? '', line: this.info.lines } satisfies Parsed);
  }
}

function newParser(): LineParser {
  const self: { parser?: LineParser } = {};
  self.parser = new LineParser({
    bom: true,
    relax_column_count: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    on_skip: (error) => {
      self.parser!.skipped(error);
      return undefined;
    },
    // Rows parsed ahead (objects, not bytes): about a chunk, read while the current one is written.
    readableHighWaterMark: 256,
  } as ConstructorParameters<typeof Parser>[0]);
  return self.parser;
}

/**
 * The rows of a CSV stream (header included, as the first row), with the line each starts on.
 * A row csv-parse cannot read (a misplaced or unclosed quote) comes as `broken`, and reading goes
 * on with the next row. csv-parse counts a CRLF inside a quoted cell as two lines; the lines given
 * here count it as one.
 */
export async function* csvRows(input: Readable): AsyncGenerator<CsvRow> {
  const parser = newParser();
  input.on('error', (error) => parser.destroy(error));
  input.pipe(parser);
  let extraLines = 0;
  try {
    for await (const parsed of parser as AsyncIterable<Parsed>) {
      if ('skipped' in parsed) {
        yield {
          line: parsed.line - extraLines,
          broken: BROKEN_MESSAGES[parsed.skipped] ?? 'The row could not be read as CSV.',
        };
        continue;
      }
      let newlines = 0;
      let crlf = 0;
      for (const cell of parsed.cells) {
        if (cell.indexOf('\n') < 0 && cell.indexOf('\r') < 0) continue;
        for (let i = 0; i < cell.length; i++) {
          const c = cell.charCodeAt(i);
          if (c === 10) newlines++;
          else if (c === 13) {
            newlines++;
            if (cell.charCodeAt(i + 1) === 10) crlf++;
          }
        }
      }
      const line = parsed.endLine - newlines - extraLines;
      extraLines += crlf;
      yield { line, cells: parsed.cells };
    }
  } finally {
    input.destroy();
  }
}
