import { importApp, jobErrors, upload, waitForJob } from './imports-support/imports.js';
import { login } from './support/auth.js';
import { newWorkspace, type Workspace } from './support/campaign-fixtures.js';
import type { TestApp } from './support/test-app.js';

/**
 * A chunk's row errors are written as one bulk insert (on MariaDB from LOAD_DATA_MIN_ROWS rows, a
 * LOAD DATA): every error is kept, with its line, field and message as the import found them.
 */
describe('customer import row errors in bulk', () => {
  let t: TestApp;
  let w: Workspace;

  beforeAll(async () => {
    t = await importApp();
    w = await newWorkspace(t, await login(t));
  });
  afterAll(() => t.close());

  it('keeps every error of a file with more than a hundred bad rows, each with its line', async () => {
    const lines = ['external_id,email,first_name'];
    const expected: { line: number; field: string; message: string }[] = [];
    for (let line = 2; line < 2 + 160; line++) {
      if (line % 3 === 0) {
        // A row with too many cells: its message names the count.
        const extra = line % 7;
        lines.push(
          `bad-${line},,Tab\there,${Array(extra + 1)
            .fill('x')
            .join(',')}`,
        );
        expected.push({ line, field: 'row', message: `The row has ${4 + extra} cells; the header names 3 columns.` });
      } else {
        lines.push(`bad-${line},not an e-mail \\N ${line},Back\\slash`);
        expected.push({ line, field: 'email', message: 'The email field must be a valid email address.' });
      }
    }
    const job = await waitForJob(t, w, (await upload(t, w, lines.join('\n'))).body.data.id);
    expect(job).toMatchObject({ status: 'completed', processed_rows: 160, created: 0, failed: 160 });
    expect(await jobErrors(t, w, job.id)).toEqual(expected);
  });
});
