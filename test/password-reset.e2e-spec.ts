import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { PasswordResetToken } from '../src/modules/auth/entities/password-reset-token.entity.js';
import { ADMIN, login } from './support/auth.js';
import { SmtpCapture } from './support/smtp-capture.js';
import { createTestApp, type TestApp } from './support/test-app.js';

const INVALID = {
  message: 'This password reset token is invalid.',
  errors: { email: ['This password reset token is invalid.'] },
};
const UNKNOWN = "We can't find a user with that email address.";

describe('forgotPassword, resetPassword: password reset', () => {
  let smtp: SmtpCapture;
  let t: TestApp;
  let password = ADMIN.password;

  beforeAll(async () => {
    smtp = await new SmtpCapture().start();
    t = await createTestApp({
      env: { STORAGE_DIR: mkdtempSync(join(tmpdir(), 'reset-storage-')) },
      config: { mailUrl: smtp.url, authAttemptsPerMinute: 100, rateLimitPerMinute: 10_000 },
    });
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });

  const resets = () => t.app.get(DataSource).getRepository(PasswordResetToken);

  /** Asks for a reset link and answers the token it carries. */
  async function requestToken(email = ADMIN.email): Promise<string> {
    const res = await t.http.post('/api/forgot-password').send({ email }).expect(200);
    expect(res.body).toEqual({ code: 200, message: 'We have emailed your password reset link.', data: null });
    const mail = smtp.last();
    expect(mail.envelopeTo).toEqual([email]);
    const link = /(\S+)\/reset-password\?token=([0-9a-f]+)&email=(\S+)/.exec(mail.parsed.text ?? '');
    expect(link).not.toBeNull();
    expect(link![1]).toBe(t.config.appUrl);
    expect(link![3]).toBe(encodeURIComponent(email));
    return link![2];
  }

  const reset = (body: Record<string, unknown>) => t.http.post('/api/reset-password').send(body);

  it('mails a link; the token resets the password once and signs the user out everywhere', async () => {
    const laptop = await login(t, ADMIN.email, password, 'laptop');
    const phone = await login(t, ADMIN.email, password, 'phone');

    const token = await requestToken();
    const mail = smtp.last().parsed;
    expect(mail.subject).toBe('Reset Password Notification');
    expect(mail.to).toMatchObject({ value: [{ address: ADMIN.email }] });
    expect(mail.from?.value).toEqual([{ address: t.config.mailFrom, name: '' }]);
    expect(mail.html).toContain(
      `href="${t.config.appUrl}/reset-password?token=${token}&amp;email=${encodeURIComponent(ADMIN.email)}"`,
    );
    // Only a hash of the token is stored.
    const row = await resets().findOneByOrFail({ email: ADMIN.email });
    expect(row.token).toBe(createHash('sha256').update(token).digest('hex'));

    const res = await reset({ token, email: ADMIN.email, password: 'brand-new-password' }).expect(200);
    expect(res.body).toEqual({ code: 200, message: 'Your password has been reset.', data: null });
    const previous = password;
    password = 'brand-new-password';

    for (const old of [laptop, phone]) {
      await t.http.get('/api/user').set('Authorization', old).expect(401, { message: 'Unauthenticated.' });
    }
    await t.http.post('/api/login').send({ email: ADMIN.email, password: previous, device_name: 'x' }).expect(422);
    const fresh = await login(t, ADMIN.email, password);
    await t.http.get('/api/user').set('Authorization', fresh).expect(200);

    // Single use.
    await reset({ token, email: ADMIN.email, password: 'another-password' }).expect(422, INVALID);
    expect(await resets().countBy({ email: ADMIN.email })).toBe(0);
    await login(t, ADMIN.email, password);
  });

  it('refuses a wrong token, an unknown e-mail and a replaced token, and changes nothing', async () => {
    const first = await requestToken();
    const second = await requestToken();
    const before = await login(t, ADMIN.email, password);

    await reset({ token: first, email: ADMIN.email, password: 'never-used-1' }).expect(422, INVALID);
    await reset({ token: 'f'.repeat(64), email: ADMIN.email, password: 'never-used-2' }).expect(422, INVALID);
    await reset({ token: second, email: 'nobody@example.com', password: 'never-used-3' }).expect(422, {
      message: UNKNOWN,
      errors: { email: [UNKNOWN] },
    });
    await t.http.get('/api/user').set('Authorization', before).expect(200);
    await login(t, ADMIN.email, password);

    // The latest link still works (upper-case e-mail is the same user).
    await reset({ token: second, email: ADMIN.email.toUpperCase(), password: 'second-new-password' }).expect(200);
    password = 'second-new-password';
    await login(t, ADMIN.email, password);
  });

  it('refuses a token older than 60 minutes', async () => {
    const token = await requestToken();
    const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);

    await resets().update({ email: ADMIN.email }, { created_at: minutesAgo(61) });
    await reset({ token, email: ADMIN.email, password: 'too-late-password' }).expect(422, INVALID);
    await login(t, ADMIN.email, password);

    await resets().update({ email: ADMIN.email }, { created_at: minutesAgo(59) });
    await reset({ token, email: ADMIN.email, password: 'just-in-time-password' }).expect(200);
    password = 'just-in-time-password';
    await login(t, ADMIN.email, password);
  });

  it('answers 422 for an unknown e-mail on forgot-password, and mails nothing', async () => {
    const before = smtp.messages.length;
    const res = await t.http.post('/api/forgot-password').send({ email: 'nobody@example.com' }).expect(422);
    expect(res.body).toEqual({ message: UNKNOWN, errors: { email: [UNKNOWN] } });
    expect(smtp.messages.length).toBe(before);
    expect(await resets().countBy({ email: 'nobody@example.com' })).toBe(0);
  });

  it('answers 422 with the field rules', async () => {
    await t.http
      .post('/api/forgot-password')
      .send({})
      .expect(422, { message: 'The email field is required.', errors: { email: ['The email field is required.'] } });
    await t.http
      .post('/api/forgot-password')
      .send({ email: 'not-an-email' })
      .expect(422, {
        message: 'The email field must be a valid email address.',
        errors: { email: ['The email field must be a valid email address.'] },
      });

    let res = await reset({}).expect(422);
    expect(res.body.errors).toEqual({
      token: ['The token field is required.'],
      email: ['The email field is required.'],
      password: ['The password field is required.'],
    });

    const token = await requestToken();
    res = await reset({ token, email: ADMIN.email, password: 'short12' }).expect(422);
    expect(res.body).toEqual({
      message: 'The password field must be at least 8 characters.',
      errors: { password: ['The password field must be at least 8 characters.'] },
    });
    // The refused attempt did not use the token up.
    await reset({ token, email: ADMIN.email, password: 'exactly8' }).expect(200);
    password = 'exactly8';
    await login(t, ADMIN.email, password);
  });
});

describe('forgotPassword: password reset limits and failures', () => {
  it('answers 429 on the sixth forgot-password attempt for one e-mail within a minute', async () => {
    const t = await createTestApp({
      env: { STORAGE_DIR: mkdtempSync(join(tmpdir(), 'reset-storage-')), MAIL_URL: undefined },
    });
    try {
      expect(t.config.authAttemptsPerMinute).toBe(5);
      for (let i = 0; i < 5; i++) await t.http.post('/api/forgot-password').send({ email: ADMIN.email }).expect(200);
      const res = await t.http.post('/api/forgot-password').send({ email: ADMIN.email }).expect(429);
      expect(res.body).toEqual({ message: 'Too Many Attempts.' });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      // Another e-mail from the same address has its own budget.
      await t.http.post('/api/forgot-password').send({ email: 'other@example.com' }).expect(422);
    } finally {
      await t.close();
    }
  });

  it('answers 502 when the reset mail cannot be sent, and stores no token', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const t = await createTestApp({
      env: { STORAGE_DIR: mkdtempSync(join(tmpdir(), 'reset-storage-')) },
      config: { mailUrl: `smtp://127.0.0.1:${port}` },
    });
    try {
      const res = await t.http.post('/api/forgot-password').send({ email: ADMIN.email }).expect(502);
      expect(res.body).toEqual({ message: 'The mail server did not accept the message. Try again later.' });
      expect(await t.app.get(DataSource).getRepository(PasswordResetToken).count()).toBe(0);
    } finally {
      await t.close();
    }
  });
});
