import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ADMIN } from './support/auth.js';
import { chromiumPath } from './support/servers.cjs';
import { createTestApp, type TestApp } from './support/test-app.js';

// Without a browser on the machine jest.config.js leaves this spec out (test/support/servers.cjs).
const CHROMIUM = chromiumPath();

describe('/api/docs in a browser (Swagger UI)', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  let base: string;

  beforeAll(async () => {
    t = await createTestApp({ config: { rateLimitPerMinute: 100000 } });
    await t.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    // --no-sandbox: CI runs as root, where chromium's sandbox cannot start.
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    page = await browser.newPage();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const operation = (tag: string, operationId: string) => page.locator(`[id="operations-${tag}-${operationId}"]`);

  async function execute(
    tag: string,
    operationId: string,
    fill?: (block: ReturnType<typeof operation>) => Promise<void>,
  ) {
    const block = operation(tag, operationId);
    await block.locator('.opblock-summary').first().click();
    await block.locator('button.try-out__btn').click();
    await fill?.(block);
    await block.locator('button.execute').click();
    const row = block.locator('.live-responses-table tr.response').first();
    await row.waitFor();
    const status = (await row.locator('td.response-col_status').innerText()).trim();
    const body = await row.locator('.response-col_description .highlight-code pre').first().innerText();
    return { block, status, body };
  }

  it('shows the tags in order, signs in, authorizes (kept across a reload) and runs a list call', async () => {
    await page.goto(`${base}/api/docs`);
    await page.locator('.opblock-tag-section').first().waitFor();
    const tags = await page
      .locator('.opblock-tag')
      .evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-tag')));
    expect(tags[0]).toBe('Session');
    expect(tags.indexOf('Marketing programs')).toBeLessThan(tags.indexOf('Admin: users'));
    expect(tags[tags.length - 1]).toBe('Diagnostics');

    // Sign in through the page.
    const login = await execute('Session', 'login', async (block) => {
      await block
        .locator('textarea.body-param__text')
        .fill(JSON.stringify({ email: ADMIN.email, password: ADMIN.password, device_name: 'swagger-ui' }));
    });
    expect(login.status).toBe('200');
    const token = JSON.parse(login.body).data.token as string;

    // Authorize with the token.
    await page.locator('.auth-wrapper button.authorize').click();
    await page.locator('.modal-ux input[type="text"]').fill(token);
    await page.locator('.modal-ux .auth-btn-wrapper button.authorize').click();
    await page.locator('.modal-ux button.btn-done').click();

    // The authorization survives a reload (persistAuthorization).
    await page.reload();
    await page.locator('.opblock-tag-section').first().waitFor();
    await page.locator('.auth-wrapper button.authorize').waitFor();
    await expectCount(page.locator('.auth-wrapper button.authorize.locked'), 1);

    // A list call: its filters start empty, so it lists every customer.
    await t.http.post('/api/customers').set('Authorization', `Bearer ${token}`).send({ email: 'one@example.com' });
    await t.http.post('/api/customers').set('Authorization', `Bearer ${token}`).send({ email: 'two@example.com' });
    const list = await execute('Customers', 'listCustomers', async (block) => {
      const email = block.locator('tr[data-param-name="email"] input');
      expect(await email.inputValue()).toBe('');
    });
    expect(list.status).toBe('200');
    const answer = JSON.parse(list.body);
    expect(answer.code).toBe(200);
    expect(answer.data.map((c: { email: string }) => c.email).sort()).toEqual(['one@example.com', 'two@example.com']);
  }, 120_000);
});

/** Playwright's locator count without its test runner: jest's expect on the awaited count. */
async function expectCount(locator: { count(): Promise<number> }, count: number): Promise<void> {
  expect(await locator.count()).toBe(count);
}
