import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { createApp } from '../src/app.factory.js';
import { loadConfig } from '../src/common/config/app-config.js';
import { ADMIN } from './support/auth.js';
import { freshDatabaseUrl } from './support/test-database.js';

/** One request id joins the answer, the request's log lines and the activity-log entries it wrote. */
describe('request id', () => {
  let app: NestFastifyApplication;
  let drop: () => Promise<void>;
  const lines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    const db = await freshDatabaseUrl();
    drop = db.drop;
    const config = {
      ...loadConfig({ ...process.env, ...db.env, LOG_LEVEL: 'info' }),
      rateLimitKeyPrefix: 'request-id:',
    };
    app = await createApp(config, { logDestination: { write: (line: string) => void lines.push(JSON.parse(line)) } });
  });
  afterAll(async () => {
    await app.close();
    await drop();
  });

  const http = () => request(app.getHttpServer());

  async function tokenOf(): Promise<string> {
    const res = await http()
      .post('/api/login')
      .send({ ...ADMIN, device_name: 'request-id' })
      .expect(200);
    return `Bearer ${res.body.data.token}`;
  }

  async function activityOf(token: string, customerId: number) {
    const res = await http()
      .get('/api/admin/activity-log')
      .query({ subject_type: 'Customer', subject_id: customerId })
      .set('Authorization', token)
      .expect(200);
    return res.body.data as { event: string; batch_uuid: string }[];
  }

  it("uses the client's x-request-id for the answer, the log line and the activity entry", async () => {
    const token = await tokenOf();
    const created = await http()
      .post('/api/customers')
      .set('Authorization', token)
      .set('x-request-id', 'trace-1234')
      .send({ first_name: 'Ada' })
      .expect(201);
    expect(created.headers['x-request-id']).toBe('trace-1234');
    expect(await activityOf(token, created.body.data.id)).toEqual([
      expect.objectContaining({ event: 'created', batch_uuid: 'trace-1234' }),
    ]);
    expect(lines).toContainEqual(
      expect.objectContaining({ reqId: 'trace-1234', method: 'POST', url: '/api/customers', status: 201 }),
    );
  });

  it('makes one when the client sends none, and uses it everywhere', async () => {
    const token = await tokenOf();
    const created = await http().post('/api/customers').set('Authorization', token).send({}).expect(201);
    const id = created.headers['x-request-id'];
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await activityOf(token, created.body.data.id))[0].batch_uuid).toBe(id);
    const line = lines.find((l) => l.reqId === id);
    expect(line).toMatchObject({ status: 201, user_id: expect.any(Number), tenant_id: expect.any(Number) });
    expect(JSON.stringify(line)).not.toMatch(/Bearer|authorization/i);
  });
});
