/**
 * The generic cases of a tenant-owned resource with create, read, list, update and delete routes (the
 * marketing resources: programs, campaign groups, campaigns, treatment groups, KPIs, customer goals).
 * A resource's spec holds its configuration (a `Resource`: routes, sample bodies, rules, accepted
 * values, sorts) and calls these functions inside the describe block of the route they exercise:
 *
 *     const ctx = resourceTestApp();
 *     describe('createCampaign: POST /api/campaign-groups/{group_id}/campaigns', () => createRuleCases(ctx, campaigns));
 */
import { login } from './auth.js';
import { newTenant, newUser, type TestUser } from './factories.js';
import { listAll, type Body, type Row } from './marketing-factories.js';
import { createTestApp, type TestApp } from './test-app.js';

/** [what is wrong, body overrides (undefined removes the field), the field the 422 names]. */
export type Case = [string, Body | (() => Body), string];

/** [what is tried, body overrides, the record fields it must yield]. */
export type Accepted = [string, Body | (() => Body), Body];

export interface Resource {
  /** The parent's id column in the record, and how to make a parent in a token's tenant. */
  parent?: { key: string; create: (token: string) => Promise<number> };
  collection: (parentId?: number | string) => string;
  item: (id: number | string) => string;
  /** Customer goals have no read-one route (INTERFACE.md). */
  readable: boolean;
  body: (overrides?: Body) => Body;
  /** A create body with odd values, and the record fields it must yield. */
  sample: { body: Body; record: Body };
  /** A PUT body that leaves the optional fields out, and the record fields after it. */
  update: { body: Body; record: Body };
  sorts: string[];
  /** The rule-breaking bodies; each is tried on POST and on PUT. */
  rules: Case[];
  /** Valid bodies at the edges of the rules, each with fields the record must show. */
  accepted: Accepted[];
  /** Further checks of the record an accepted body yields on POST (given the body sent). */
  checkAccepted?: (sent: Body, record: Row) => void;
  /** Values for the 31 records of the paging test. */
  pageBody: (i: number) => Body;
}

/** The app the cases run on: an admin and a viewer of one tenant, and an admin of another. */
export interface ResourceContext {
  t: TestApp;
  root: string;
  admin: TestUser;
  viewer: TestUser;
  other: TestUser;
}

/**
 * Boots one app for the spec (beforeAll at the level it is called from, closed in afterAll) and
 * answers its context, filled in once beforeAll has run; `seed` adds records of the spec's own
 * (made after the users, in the same beforeAll) to it.
 */
export function resourceTestApp<Extra extends object = object>(
  seed?: (ctx: ResourceContext) => Promise<Extra>,
): ResourceContext & Extra {
  const ctx = {} as ResourceContext & Extra;
  beforeAll(async () => {
    ctx.t = await createTestApp({ config: { rateLimitPerMinute: 100_000, authAttemptsPerMinute: 100_000 } });
    ctx.root = await login(ctx.t);
    const tenant = await newTenant(ctx.t, ctx.root);
    ctx.admin = await newUser(ctx.t, ctx.root, ['admin'], tenant.id);
    ctx.viewer = await newUser(ctx.t, ctx.root, ['viewer'], tenant.id);
    const otherTenant = await newTenant(ctx.t, ctx.root);
    ctx.other = await newUser(ctx.t, ctx.root, ['admin'], otherTenant.id);
    if (seed) Object.assign(ctx, await seed(ctx));
  });
  afterAll(() => ctx.t.close());
  return ctx;
}

export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const resolve = (overrides: Body | (() => Body)) => (typeof overrides === 'function' ? overrides() : overrides);

/** Orders records the way `?sort=` must: by the field, then by id, both in the sort's direction. */
function expectedOrder(rows: Row[], sort: string): number[] {
  const descending = sort.startsWith('-');
  const field = descending ? sort.slice(1) : sort;
  const compare = (a: Row, b: Row) => {
    const [x, y] = [a[field] as string | number, b[field] as string | number];
    const c = x < y ? -1 : x > y ? 1 : a.id - b.id;
    return descending ? -c : c;
  };
  return [...rows].sort(compare).map((r) => r.id);
}

function helpers(ctx: ResourceContext, r: Resource) {
  const as = (token: string) => ({
    get: (path: string) => ctx.t.http.get(path).set('Authorization', token),
    post: (path: string, body: Body) => ctx.t.http.post(path).set('Authorization', token).send(body),
    put: (path: string, body: Body) => ctx.t.http.put(path).set('Authorization', token).send(body),
    delete: (path: string) => ctx.t.http.delete(path).set('Authorization', token),
  });
  const newParent = (token: string) => (r.parent ? r.parent.create(token) : Promise.resolve(undefined));
  const parentOf = (parentId: number | undefined): Body =>
    r.parent && parentId !== undefined ? { [r.parent.key]: parentId } : {};
  /** Every record under the parent, in id order: the "nothing was written" witness. */
  const snapshot = async (token: string, parentId?: number, query: Body = {}) => {
    const res = await as(token)
      .get(r.collection(parentId))
      .query({ limit: 100, sort: 'id', ...query })
      .expect(200);
    return res.body.data as Row[];
  };
  /** Top-level lists hold the whole tenant's records; narrow them to one record by its name. */
  const only = (record: Row): Body => (r.parent ? {} : { q: record.name });
  return { as, newParent, parentOf, snapshot, only };
}

/** Round trip, unknown ids and a viewer's rights, over every route of the resource. */
export function crudCases(ctx: ResourceContext, r: Resource): void {
  const { as, newParent, parentOf, snapshot, only } = helpers(ctx, r);

  it('creates, reads, lists, updates and deletes', async () => {
    const { admin } = ctx;
    const api = as(admin.token);
    const parentId = await newParent(admin.token);
    const created = await api
      .post(r.collection(parentId), { ...r.sample.body, id: 424242, tenant_id: ctx.other.tenant_id, unknown: 'x' })
      .expect(201);
    expect(created.body).toEqual({ code: 201, message: 'Created successfully.', data: expect.any(Object) });
    const record = created.body.data as Row;
    expect(record).toEqual({
      id: expect.any(Number),
      tenant_id: admin.tenant_id,
      ...parentOf(parentId),
      ...r.sample.record,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });
    expect(record.id).not.toBe(424242);

    if (r.readable) {
      const read = await api.get(r.item(record.id)).expect(200);
      expect(read.body).toEqual({ code: 200, message: 'Retrieved successfully.', data: record });
    } else {
      await api.get(r.item(record.id)).expect(404);
    }

    const list = await api.get(r.collection(parentId)).query(only(record)).expect(200);
    expect(list.body).toEqual({
      code: 200,
      message: 'Retrieved successfully.',
      data: [record],
      meta: { limit: 25, next_cursor: null, has_more: false },
    });

    const updated = await api.put(r.item(record.id), { ...r.update.body, tenant_id: 1, id: 1 }).expect(200);
    expect(updated.body).toEqual({
      code: 200,
      message: 'Updated successfully.',
      data: {
        ...record,
        ...r.update.record,
        updated_at: expect.stringMatching(ISO),
      },
    });
    const renamed = { ...record, name: r.update.record.name };
    expect((await snapshot(admin.token, parentId, only(renamed))).map((row) => row.id)).toEqual([record.id]);

    await api.delete(r.item(record.id)).expect(200, { code: 200, message: 'Deleted successfully.', data: null });
    if (r.readable) await api.get(r.item(record.id)).expect(404);
    await api.put(r.item(record.id), r.update.body).expect(404);
    await api.delete(r.item(record.id)).expect(404);
    expect(await snapshot(admin.token, parentId, only(renamed))).toEqual([]);
  });

  it('answers 404 for unknown, malformed and other-tenant ids on every route', async () => {
    const api = as(ctx.admin.token);
    const theirParent = await newParent(ctx.other.token);
    const theirs = (await as(ctx.other.token).post(r.collection(theirParent), r.body()).expect(201)).body.data as Row;
    const theirsBefore = await snapshot(ctx.other.token, theirParent);
    const ids = ['abc', '0', '-1', '1.5', '1e3', '99999999', String(theirs.id)];
    const body = r.body();

    for (const id of ids) {
      const answers = {
        get: (await api.get(r.item(id))).status,
        put: (await api.put(r.item(id), body)).status,
        delete: (await api.delete(r.item(id))).status,
      };
      expect({ id, ...answers }).toEqual({ id, get: 404, put: 404, delete: 404 });
    }
    if (r.parent) {
      for (const id of ['abc', '0', '-1', '1.5', '99999999', String(theirParent)]) {
        const list = await api.get(r.collection(id));
        const post = await api.post(r.collection(id), body);
        expect({ id, list: list.status, post: post.status }).toEqual({ id, list: 404, post: 404 });
        expect(list.body).toEqual({ message: expect.any(String) });
        expect(list.headers['cache-control']).toBe('no-cache, private');
      }
    }
    // The other tenant's record is untouched.
    expect(await snapshot(ctx.other.token, theirParent)).toEqual(theirsBefore);
  });

  it('lets a viewer list and read, and refuses writes with 403', async () => {
    const parentId = await newParent(ctx.admin.token);
    const record = (await as(ctx.admin.token).post(r.collection(parentId), r.body()).expect(201)).body.data as Row;
    const viewer = as(ctx.viewer.token);
    expect((await viewer.get(r.collection(parentId)).query(only(record)).expect(200)).body.data).toEqual([record]);
    if (r.readable) expect((await viewer.get(r.item(record.id)).expect(200)).body.data).toEqual(record);
    const refused = { message: 'This action is unauthorized.' };
    await viewer.post(r.collection(parentId), r.body()).expect(403, refused);
    await viewer.put(r.item(record.id), r.body({ name: 'Changed' })).expect(403, refused);
    await viewer.delete(r.item(record.id)).expect(403, refused);
    expect(await snapshot(ctx.admin.token, parentId, only(record))).toEqual([record]);
  });
}

/** The configuration's accepted bodies, each on POST and then the same body on PUT. */
export function acceptedBodyCases(ctx: ResourceContext, r: Resource): void {
  const { as, newParent } = helpers(ctx, r);

  it('accepts values at the edges of every rule', async () => {
    const api = as(ctx.admin.token);
    for (const [what, overrides, fields] of r.accepted) {
      // A fresh parent each time, so that treatment-group percentages never add up.
      const parentId = await newParent(ctx.admin.token);
      const res = await api.post(r.collection(parentId), r.body(resolve(overrides)));
      expect({ what, status: res.status, errors: res.body.errors }).toEqual({ what, status: 201, errors: undefined });
      expect({ what, ...res.body.data }).toMatchObject({ what, ...fields });
      r.checkAccepted?.(resolve(overrides), res.body.data as Row);
      // The same body on PUT is accepted and yields the same fields.
      const put = await api.put(r.item(res.body.data.id), r.body(resolve(overrides)));
      expect({ what, status: put.status }).toEqual({ what, status: 200 });
      expect({ what, ...put.body.data }).toMatchObject({ what, ...fields });
    }
  });
}

/** The configuration's rule-breaking bodies on POST. */
export function createRuleCases(ctx: ResourceContext, r: Resource): void {
  const { as, newParent, snapshot } = helpers(ctx, r);

  it('answers 422 on the right field for every rule on POST, writing nothing', async () => {
    const api = as(ctx.admin.token);
    const parentId = await newParent(ctx.admin.token);
    await api.post(r.collection(parentId), r.body()).expect(201);
    const before = await snapshot(ctx.admin.token, parentId);
    for (const [what, overrides, key] of r.rules) {
      const res = await api.post(r.collection(parentId), r.body(resolve(overrides)));
      expect({ what, status: res.status, keys: Object.keys(res.body.errors ?? {}) }).toEqual({
        what,
        status: 422,
        keys: [key],
      });
      expect(res.body.message).toBe(res.body.errors[key][0]);
      expect(res.headers['cache-control']).toBe('no-cache, private');
      expect(await snapshot(ctx.admin.token, parentId)).toEqual(before);
    }
  });
}

/** The configuration's rule-breaking bodies on PUT. */
export function updateRuleCases(ctx: ResourceContext, r: Resource): void {
  const { as, newParent, snapshot } = helpers(ctx, r);

  it('answers 422 on the right field for every rule on PUT, changing nothing', async () => {
    const api = as(ctx.admin.token);
    const parentId = await newParent(ctx.admin.token);
    const record = (await api.post(r.collection(parentId), r.body()).expect(201)).body.data as Row;
    const before = await snapshot(ctx.admin.token, parentId);
    for (const [what, overrides, key] of r.rules) {
      const res = await api.put(r.item(record.id), r.body(resolve(overrides)));
      expect({ what, status: res.status, keys: Object.keys(res.body.errors ?? {}) }).toEqual({
        what,
        status: 422,
        keys: [key],
      });
      expect(await snapshot(ctx.admin.token, parentId)).toEqual(before);
    }
  });
}

/** Paging, sorting, filtering and bad queries of the list route, over 31 records of a tenant of their own. */
export function listCases(ctx: ResourceContext, r: Resource): void {
  const { as, newParent } = helpers(ctx, r);

  describe('31 records in a tenant of their own', () => {
    let token: string;
    let parentId: number | undefined;
    let rows: Row[];

    beforeAll(async () => {
      // A tenant of its own, so that the list holds exactly these records.
      const tenant = await newTenant(ctx.t, ctx.root);
      token = (await newUser(ctx.t, ctx.root, ['admin'], tenant.id)).token;
      parentId = await newParent(token);
      rows = [];
      for (let i = 0; i < 31; i++) {
        rows.push((await as(token).post(r.collection(parentId), r.pageBody(i)).expect(201)).body.data as Row);
      }
    });

    it('pages through 31 records ten at a time with no gaps or repeats', async () => {
      const first = await as(token).get(r.collection(parentId)).query({ limit: 10 }).expect(200);
      expect(first.body.meta).toEqual({ limit: 10, next_cursor: expect.any(String), has_more: true });
      const withTotal = await as(token).get(r.collection(parentId)).query({ limit: 10, with_total: true });
      expect(withTotal.body.meta).toEqual({ limit: 10, next_cursor: expect.any(String), has_more: true, total: 31 });

      const seen: number[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res: { body: { data: Row[]; meta: Record<string, unknown> } } = await as(token)
          .get(r.collection(parentId))
          .query({ limit: 10, with_total: true, ...(cursor ? { cursor } : {}) })
          .expect(200);
        pages++;
        const last = pages === 4;
        expect(res.body.meta).toEqual({
          limit: 10,
          next_cursor: last ? null : expect.any(String),
          has_more: !last,
          total: 31,
        });
        expect(res.body.data).toHaveLength(last ? 1 : 10);
        seen.push(...res.body.data.map((row) => row.id));
        cursor = res.body.meta.next_cursor as string | null;
      } while (cursor);
      expect(pages).toBe(4);
      // Default order: newest first.
      expect(seen).toEqual(rows.map((row) => row.id).reverse());
    });

    const sorts = ['id', '-id', 'name', '-name', 'created_at', '-created_at'];
    for (const field of r.sorts) sorts.push(field, `-${field}`);

    it.each(sorts)('sorts by %s across pages', async (sort) => {
      const { rows: paged, pages } = await listAll(ctx.t, token, r.collection(parentId), { limit: 10, sort });
      expect(pages).toBe(4);
      expect(paged.map((row) => row.id)).toEqual(expectedOrder(rows, sort));
    });

    it('filters by q' + (r.sorts.length ? ' and status' : ''), async () => {
      const { rows: bravo } = await listAll(ctx.t, token, r.collection(parentId), { q: 'rav', limit: 5 });
      expect(bravo.map((row) => row.id)).toEqual(
        rows
          .filter((row) => row.name === 'bravo')
          .map((row) => row.id)
          .reverse(),
      );
      for (const q of ['%', '_', 'zulu']) {
        const none = await as(token).get(r.collection(parentId)).query({ q }).expect(200);
        expect({ q, data: none.body.data }).toEqual({ q, data: [] });
      }
      if (!r.sorts.length) return;
      const active = await listAll(ctx.t, token, r.collection(parentId), { status: 'active', q: 'a', limit: 3 });
      expect(active.rows.map((row) => row.id)).toEqual(
        rows
          .filter((row) => row.status === 'active' && String(row.name).includes('a'))
          .map((row) => row.id)
          .reverse(),
      );
    });

    it('answers 422 for a bad limit, sort, cursor or filter', async () => {
      const otherSort = await as(token).get(r.collection(parentId)).query({ limit: 10, sort: 'name' });
      const bad: Record<string, string>[] = [
        { limit: '0' },
        { limit: '101' },
        { limit: '-5' },
        { limit: '2.5' },
        { limit: 'ten' },
        { sort: 'nope' },
        { sort: 'description' },
        { sort: '--id' },
        { cursor: 'not a cursor' },
        { cursor: 'bm90LWpzb24' },
        { cursor: Buffer.from(JSON.stringify(['-id', null, -4])).toString('base64url') },
        { cursor: otherSort.body.meta.next_cursor as string },
        { with_total: 'maybe' },
        { q: 'x'.repeat(256) },
        ...(r.sorts.length ? [{ status: 'archived' }] : []),
      ];
      for (const query of bad) {
        const res = await as(token).get(r.collection(parentId)).query(query);
        expect({ query, status: res.status }).toEqual({ query, status: 422 });
        expect(Object.keys(res.body.errors)).toEqual([Object.keys(query)[0]]);
      }
      const limits = await as(token).get(r.collection(parentId)).query({ limit: 100 }).expect(200);
      expect(limits.body.data).toHaveLength(31);
    });
  });
}
