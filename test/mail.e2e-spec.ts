import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { DataSource } from 'typeorm';
import { PasswordHasher } from '../src/common/auth/password-hasher.js';
import { USER_MODEL_TYPE } from '../src/common/auth/auth-user.js';
import { User } from '../src/modules/auth/entities/user.entity.js';
import { ADMIN, login } from './support/auth.js';
import { SmtpCapture } from './support/smtp-capture.js';
import { createTestApp, type TestApp } from './support/test-app.js';

const tempDir = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A user of the admin's tenant holding only the given role, signed in. */
async function userWithRole(t: TestApp, role: string): Promise<string> {
  const ds = t.app.get(DataSource);
  const admin = await ds.getRepository(User).findOneByOrFail({ email: ADMIN.email });
  const email = `${role}-${randomBytes(3).toString('hex')}@example.com`;
  const password = 'role-user-password';
  const user = await ds.getRepository(User).save(
    ds.getRepository(User).create({
      tenant_id: admin.tenant_id,
      name: role,
      email,
      password: await t.app.get(PasswordHasher).hash(password),
      is_active: true,
    }),
  );
  const [{ id: roleId }] = await ds.query('SELECT id FROM roles WHERE name = ?', [role]);
  await ds.query('INSERT INTO model_has_roles (role_id, model_type, model_id) VALUES (?, ?, ?)', [
    roleId,
    USER_MODEL_TYPE,
    user.id,
  ]);
  return login(t, email, password);
}

const message = (overrides: Record<string, unknown> = {}) => ({
  to: 'ada@example.com',
  subject: 'Quarterly report',
  content: '<h1>Hello Ada</h1><p>The report is <b>ready</b> &amp; attached.</p>',
  ...overrides,
});

describe('sendEmail: POST /api/send-email over SMTP', () => {
  let smtp: SmtpCapture;
  let t: TestApp;
  let token: string;
  let appDir: string;
  let outside: string;

  beforeAll(async () => {
    smtp = await new SmtpCapture().start();
    const storage = tempDir('mail-storage-');
    t = await createTestApp({ env: { STORAGE_DIR: storage }, config: { mailUrl: smtp.url } });
    token = await login(t);

    appDir = join(t.config.storageDir, 'app');
    mkdirSync(join(appDir, 'reports'), { recursive: true });
    writeFileSync(join(appDir, 'reports', 'q1.txt'), 'revenue: 42\n');
    writeFileSync(join(appDir, 'chart.bin'), randomBytes(4096));
    // A link inside the storage area that stays inside it is fine.
    symlinkSync(join(appDir, 'reports', 'q1.txt'), join(appDir, 'latest.txt'));
    // Files outside the storage area, reachable only by leaving it.
    outside = tempDir('mail-outside-');
    writeFileSync(join(outside, 'secret.txt'), 'do not send');
    writeFileSync(join(t.config.storageDir, 'beside-app.txt'), 'do not send either');
    symlinkSync(join(outside, 'secret.txt'), join(appDir, 'link-out.txt'));
    symlinkSync(outside, join(appDir, 'dir-link-out'));
  });
  afterAll(async () => {
    await t.close();
    await smtp.stop();
  });

  const send = (body: Record<string, unknown>, auth = token) =>
    t.http.post('/api/send-email').set('Authorization', auth).send(body);

  it('delivers the HTML with a plain-text version, from MAIL_FROM, and answers the Message-ID', async () => {
    const res = await send(message()).expect(200);
    expect(res.body).toEqual({
      code: 200,
      message: 'Email sent successfully.',
      data: { message_id: expect.stringMatching(/^<.+@.+>$/) },
    });

    const mail = smtp.last();
    expect(mail.envelopeTo).toEqual(['ada@example.com']);
    expect(mail.envelopeFrom).toBe(t.config.mailFrom);
    expect(mail.parsed.messageId).toBe(res.body.data.message_id);
    expect(mail.parsed.subject).toBe('Quarterly report');
    expect(mail.parsed.from?.value).toEqual([{ address: t.config.mailFrom, name: '' }]);
    expect(mail.parsed.to).toMatchObject({ value: [{ address: 'ada@example.com', name: '' }] });
    expect(mail.parsed.replyTo).toBeUndefined();
    expect(mail.parsed.html).toBe(message().content);
    expect(mail.parsed.text?.trim()).toBe('Hello Ada\nThe report is ready & attached.');
    expect(mail.parsed.attachments).toEqual([]);
  });

  it('uses from_email, from_name and reply_to when given', async () => {
    await send(
      message({ from_email: 'reports@example.com', from_name: 'Reporting Team', reply_to: 'help@example.com' }),
    ).expect(200);
    let mail = smtp.last();
    expect(mail.parsed.from?.value).toEqual([{ address: 'reports@example.com', name: 'Reporting Team' }]);
    expect(mail.envelopeFrom).toBe('reports@example.com');
    expect(mail.parsed.replyTo?.value).toEqual([{ address: 'help@example.com', name: '' }]);

    // A name alone goes with the default address; explicit nulls mean the defaults.
    await send(message({ from_name: 'Campaign Service', from_email: null, reply_to: null, attachments: null })).expect(
      200,
    );
    mail = smtp.last();
    expect(mail.parsed.from?.value).toEqual([{ address: t.config.mailFrom, name: 'Campaign Service' }]);
    expect(mail.parsed.replyTo).toBeUndefined();
  });

  it('takes addresses with spaces around them, as every e-mail field of the API does, and sends to them trimmed', async () => {
    await send(
      message({ to: ' Ada@Example.com ', from_email: ' reports@example.com', reply_to: 'help@example.com\t' }),
    ).expect(200);
    const mail = smtp.last();
    // The local part keeps its case; the transport writes the domain in lower case.
    expect(mail.envelopeTo).toEqual(['Ada@example.com']);
    expect(mail.envelopeFrom).toBe('reports@example.com');
    expect(mail.parsed.replyTo?.value).toEqual([{ address: 'help@example.com', name: '' }]);
  });

  it('attaches files of the storage area, byte for byte, under their name or `as`, with `mime`', async () => {
    await send(
      message({
        attachments: [
          { path: 'reports/q1.txt' },
          { path: 'chart.bin', as: 'chart.png', mime: 'image/png' },
          { path: 'latest.txt', as: null, mime: null },
        ],
      }),
    ).expect(200);
    const attachments = smtp.last().parsed.attachments;
    expect(attachments.map((a) => [a.filename, a.contentType])).toEqual([
      ['q1.txt', 'text/plain'],
      ['chart.png', 'image/png'],
      ['latest.txt', 'text/plain'],
    ]);
    expect(attachments[0].content.equals(readFileSync(join(appDir, 'reports', 'q1.txt')))).toBe(true);
    expect(attachments[1].content.equals(readFileSync(join(appDir, 'chart.bin')))).toBe(true);
    expect(attachments[2].content.toString()).toBe('revenue: 42\n');
  });

  it.each([
    ['a parent-directory path', '../beside-app.txt', 'must be a relative path inside the storage area'],
    ['a path through a parent directory', 'reports/../../beside-app.txt', 'must be a relative path inside'],
    ['an absolute path', '/etc/passwd', 'must be a relative path inside the storage area'],
    ['a link pointing outside', 'link-out.txt', 'must be a relative path inside the storage area'],
    ['a path through a directory link pointing outside', 'dir-link-out/secret.txt', 'must be a relative path'],
    ['a missing file', 'reports/missing.txt', 'must name an existing file'],
    ['a directory', 'reports', 'must name an existing file'],
  ])('answers 422 on attachments.0.path for %s, and sends nothing', async (_case, path, text) => {
    const before = smtp.messages.length;
    const res = await send(message({ attachments: [{ path }] })).expect(422);
    expect(res.body).toEqual({ message: expect.any(String), errors: { 'attachments.0.path': [expect.any(String)] } });
    expect(res.body.errors['attachments.0.path'][0]).toContain(text);
    expect(res.body.errors['attachments.0.path'][0]).toMatch(/^The attachments\.0\.path field /);
    expect(JSON.stringify(res.body)).not.toContain(t.config.storageDir);
    expect(smtp.messages.length).toBe(before);
  });

  it('reports every failing attachment under its own index', async () => {
    const res = await send(
      message({ attachments: [{ path: 'reports/q1.txt' }, { path: '../x' }, { path: 'nope.txt' }] }),
    ).expect(422);
    expect(Object.keys(res.body.errors)).toEqual(['attachments.1.path', 'attachments.2.path']);
    expect(res.body.message).toMatch(/\(and 1 more error\)$/);
  });

  it('answers 422 with the field rules', async () => {
    let res = await send({}).expect(422);
    expect(res.body.errors).toEqual({
      to: ['The to field is required.'],
      subject: ['The subject field is required.'],
      content: ['The content field is required.'],
    });
    expect(res.body.message).toBe('The to field is required. (and 2 more errors)');

    res = await send({
      to: 'not-an-email',
      subject: 'x'.repeat(256),
      content: 42,
      from_email: 'nope',
      from_name: ['x'],
      reply_to: 'also nope',
      attachments: 'file.txt',
    }).expect(422);
    expect(res.body.errors).toEqual({
      to: ['The to field must be a valid email address.'],
      subject: ['The subject field must not be greater than 255 characters.'],
      content: ['The content field must be a string.'],
      from_email: ['The from email field must be a valid email address.'],
      from_name: ['The from name field must be a string.'],
      reply_to: ['The reply to field must be a valid email address.'],
      attachments: ['The attachments field must be an array.'],
    });

    res = await send(message({ to: null, attachments: [{ as: 'x.txt' }, { path: 'reports/q1.txt', mime: 'bad' }] }));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({
      to: ['The to field is required.'],
      'attachments.0.path': ['The path field is required.'],
      'attachments.1.mime': ['The mime field must be a valid media type, such as application/pdf.'],
    });
  });

  it('answers 401 without a token and 403 without the mail.send permission', async () => {
    const before = smtp.messages.length;
    await t.http.post('/api/send-email').send(message()).expect(401, { message: 'Unauthenticated.' });
    const viewer = await userWithRole(t, 'viewer');
    await send(message(), viewer).expect(403, { message: 'This action is unauthorized.' });
    const manager = await userWithRole(t, 'manager');
    await send(message(), manager).expect(200);
    expect(smtp.messages.length).toBe(before + 1);
  });
});

describe('sendEmail: POST /api/send-email when the transport fails', () => {
  it('answers 502 when the SMTP server refuses the recipient', async () => {
    const refusing = await new SmtpCapture({
      onRcptTo: (_address, _session, callback) => callback(new Error('5.1.1 Mailbox unavailable: internal-host-17')),
    }).start();
    const t = await createTestApp({
      env: { STORAGE_DIR: tempDir('mail-storage-') },
      config: { mailUrl: refusing.url },
    });
    try {
      const res = await t.http
        .post('/api/send-email')
        .set('Authorization', await login(t))
        .send(message())
        .expect(502);
      expect(res.body).toEqual({ message: 'The mail server did not accept the message. Try again later.' });
      expect(res.headers['cache-control']).toBe('no-cache, private');
      expect(refusing.messages).toHaveLength(0);
    } finally {
      await t.close();
      await refusing.stop();
    }
  });

  it('answers 502 when the SMTP server cannot be reached, without naming it', async () => {
    const port = await closedPort();
    const t = await createTestApp({
      env: { STORAGE_DIR: tempDir('mail-storage-') },
      config: { mailUrl: `smtp://user:secret-pass@127.0.0.1:${port}` },
    });
    try {
      const res = await t.http
        .post('/api/send-email')
        .set('Authorization', await login(t))
        .send(message())
        .expect(502);
      expect(res.body).toEqual({ message: 'The mail server did not accept the message. Try again later.' });
      expect(JSON.stringify(res.body)).not.toMatch(/127\.0\.0\.1|secret-pass|ECONNREFUSED/);
    } finally {
      await t.close();
    }
  });
});

describe('sendEmail: POST /api/send-email without MAIL_URL', () => {
  it('writes each message as an .eml file under STORAGE_DIR/mail/', async () => {
    const storage = tempDir('mail-storage-');
    const t = await createTestApp({
      env: { STORAGE_DIR: storage, MAIL_URL: undefined },
      config: { mailUrl: undefined },
    });
    try {
      mkdirSync(join(storage, 'app'), { recursive: true });
      writeFileSync(join(storage, 'app', 'note.txt'), 'attached note');
      const token = await login(t);
      const first = await t.http
        .post('/api/send-email')
        .set('Authorization', token)
        .send(message({ reply_to: 'help@example.com', attachments: [{ path: 'note.txt' }] }))
        .expect(200);
      await t.http
        .post('/api/send-email')
        .set('Authorization', token)
        .send(message({ subject: 'Second' }))
        .expect(200);

      const files = readdirSync(join(storage, 'mail')).sort();
      expect(files).toHaveLength(2);
      for (const file of files) expect(file).toMatch(/^\d{13}-[0-9a-f]{12}\.eml$/);
      const parsed = await Promise.all(files.map((f) => simpleParser(readFileSync(join(storage, 'mail', f)))));
      const mail = parsed.find((p) => p.messageId === first.body.data.message_id)!;
      expect(mail).toBeDefined();
      expect(mail.subject).toBe('Quarterly report');
      expect(mail.to).toMatchObject({ value: [{ address: 'ada@example.com' }] });
      expect(mail.from?.value).toEqual([{ address: t.config.mailFrom, name: '' }]);
      expect(mail.replyTo?.value).toEqual([{ address: 'help@example.com', name: '' }]);
      expect(mail.html).toBe(message().content);
      expect(mail.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([['note.txt', 'attached note']]);
      expect(parsed.map((p) => p.subject).sort()).toEqual(['Quarterly report', 'Second']);
    } finally {
      await t.close();
    }
  });
});
