import { login } from './support/auth.js';
import { newUser, type TestUser } from './support/factories.js';
import { createTestApp, type TestApp } from './support/test-app.js';

describe('listUserTokens, revokeUserToken: GET /api/user/tokens, DELETE /api/user/tokens/{id}', () => {
  let t: TestApp;
  let admin: string;
  let user: TestUser;

  beforeAll(async () => {
    t = await createTestApp({ config: { rateLimitPerMinute: 100000 } });
    admin = await login(t);
    user = await newUser(t, admin, ['viewer']);
  });
  afterAll(() => t.close());

  const list = (token: string, query = '') => t.http.get(`/api/user/tokens${query}`).set('Authorization', token);

  it("lists the caller's own tokens, marks the current one, and never shows a token or hash", async () => {
    const laptop = await login(t, user.email, user.password, 'laptop');
    const res = await list(laptop, '?with_total=true').expect(200);
    expect(res.body.meta).toEqual({ limit: 25, next_cursor: null, has_more: false, total: 2 });
    const tokens = res.body.data as Record<string, unknown>[];
    expect(tokens.map((token) => Object.keys(token).sort())).toEqual(
      tokens.map(() => ['created_at', 'current', 'expires_at', 'id', 'last_used_at', 'name']),
    );
    expect(tokens[0]).toMatchObject({ name: 'laptop', current: true });
    expect(tokens[1]).toMatchObject({ name: 'jest', current: false });
    expect(tokens[0].expires_at).toMatch(/Z$/);
    // The request made with the token is recorded (at most once a minute).
    expect(tokens[0].last_used_at).toMatch(/Z$/);
    expect(JSON.stringify(res.body)).not.toContain(laptop.slice('Bearer '.length));
    // Another user's tokens never show.
    const mine = await list(admin).expect(200);
    expect(mine.body.data.every((token: { name: string }) => token.name === 'jest')).toBe(true);
    expect(mine.body.data.map((token: { id: number }) => token.id)).not.toContain(tokens[0].id);
  });

  it('pages by the conventions (limit, cursor, sort) and refuses bad list parameters', async () => {
    const phone = await login(t, user.email, user.password, 'phone');
    const first = await list(phone, '?limit=1&sort=name').expect(200);
    expect(first.body.meta.has_more).toBe(true);
    const second = await list(phone, `?limit=1&sort=name&cursor=${first.body.meta.next_cursor}`).expect(200);
    expect(second.body.data[0].name > first.body.data[0].name).toBe(true);
    await list(phone, '?sort=token').expect(422);
    await list(phone, '?limit=0').expect(422);
  });

  it('revokes one of the caller’s tokens at once; another user’s id is a 404', async () => {
    const tablet = await login(t, user.email, user.password, 'tablet');
    const desktop = await login(t, user.email, user.password, 'desktop');
    const tokens = (await list(desktop, '?limit=100').expect(200)).body.data as { id: number; name: string }[];
    const tabletId = tokens.find((token) => token.name === 'tablet')!.id;

    const adminTokens = (await list(admin).expect(200)).body.data as { id: number }[];
    await t.http.delete(`/api/user/tokens/${adminTokens[0].id}`).set('Authorization', desktop).expect(404);
    await t.http.get('/api/user').set('Authorization', admin).expect(200);

    const revoked = await t.http.delete(`/api/user/tokens/${tabletId}`).set('Authorization', desktop).expect(200);
    expect(revoked.body).toEqual({ code: 200, message: 'Token revoked.', data: null });
    await t.http.get('/api/user').set('Authorization', tablet).expect(401);
    await t.http.delete(`/api/user/tokens/${tabletId}`).set('Authorization', desktop).expect(404);
    await t.http.delete('/api/user/tokens/abc').set('Authorization', desktop).expect(404);

    // Revoking the current token signs this device out.
    const current = (await list(desktop).expect(200)).body.data.find((token: { current: boolean }) => token.current);
    await t.http.delete(`/api/user/tokens/${current.id}`).set('Authorization', desktop).expect(200);
    await list(desktop).expect(401);
  });

  it('needs a token', async () => {
    await t.http.get('/api/user/tokens').expect(401);
    await t.http.delete('/api/user/tokens/1').expect(401);
  });
});
