import { newTenant, newUser } from './support/factories.js';
import { listAll, newGroup, newProgram, planBody } from './support/marketing-factories.js';
import { planAccepted, planPageBody, planRules } from './support/marketing-rules.js';
import {
  acceptedBodyCases,
  createRuleCases,
  crudCases,
  listCases,
  resourceTestApp,
  updateRuleCases,
  type Resource,
} from './support/resource-cases.js';
import type { TestApp } from './support/test-app.js';

/** Marketing programs (src/modules/marketing/marketing-programs.controller.ts): the top of the plan. */
const ctx = resourceTestApp();

const programs: Resource = {
  collection: () => '/api/marketing-programs',
  item: (id) => `/api/marketing-programs/${id}`,
  readable: true,
  body: planBody,
  sample: {
    body: {
      name: 'Spring 😀 launch',
      description: 'All of spring',
      status: 'active',
      start_date: '2026-03-01',
      end_date: '2026-05-31T23:59:59+02:00',
      budget: 25000.5,
      goal: 'Grow sign-ups',
    },
    record: {
      name: 'Spring 😀 launch',
      description: 'All of spring',
      status: 'active',
      start_date: '2026-03-01T00:00:00.000Z',
      end_date: '2026-05-31T21:59:59.000Z',
      budget: 25000.5,
      goal: 'Grow sign-ups',
    },
  },
  update: {
    body: {
      name: 'Summer',
      description: 'All of summer',
      status: 'inactive',
      start_date: '2026-06-01T08:00:00Z',
      end_date: '2026-08-31',
      budget: '300.25',
      goal: 'Keep them',
    },
    record: {
      name: 'Summer',
      description: 'All of summer',
      status: 'inactive',
      start_date: '2026-06-01T08:00:00.000Z',
      end_date: '2026-08-31T00:00:00.000Z',
      budget: 300.25,
      goal: 'Keep them',
    },
  },
  sorts: ['start_date', 'end_date', 'budget'],
  rules: planRules(true),
  accepted: planAccepted,
  pageBody: planPageBody,
};

describe('marketing programs', () => {
  describe('createMarketingProgram, getMarketingProgram, listMarketingPrograms, updateMarketingProgram, deleteMarketingProgram: every route', () => {
    crudCases(ctx, programs);
  });

  describe('createMarketingProgram, updateMarketingProgram: POST /api/marketing-programs, PUT /api/marketing-programs/{id}', () => {
    acceptedBodyCases(ctx, programs);
  });

  describe('createMarketingProgram: POST /api/marketing-programs', () => {
    createRuleCases(ctx, programs);

    // Contract behaviour that rests on the shared code in src/common (a comment over a case names the file).
    describe('dates and amounts as the columns store them', () => {
      let t: TestApp;
      let token: string;

      beforeAll(async () => {
        // An admin of a tenant of its own.
        t = ctx.t;
        token = (await newUser(t, ctx.root, ['admin'], (await newTenant(t, ctx.root)).id)).token;
      });

      it('keeps dates to whole seconds on every database, as DATETIME does', async () => {
        const program = await newProgram(t, token, {
          start_date: '2026-03-01T10:20:30.750Z',
          end_date: '2026-03-02T00:00:00.999+01:00',
        });
        expect({ start: program.start_date, end: program.end_date }).toEqual({
          start: '2026-03-01T10:20:30.000Z',
          end: '2026-03-01T23:00:00.000Z',
        });
      });

      // src/common/validation/fields.ts (parseDateLike / DateField): the offset moves the instant past
      // what a DATETIME column stores. Observed: SQLite 201 with end_date "0000-01-01T04:00:00.000Z",
      // MariaDB 500 "Server Error". API-CONVENTIONS §6: beyond what the column stores is a 422.
      it('answers 422 for a date that is after 9999-12-31 once its offset is applied', async () => {
        const before = await listAll(t, token, '/api/marketing-programs');
        for (const [dates, key] of [
          [{ start_date: '9999-12-31', end_date: '9999-12-31T23:00:00-05:00' }, 'end_date'],
          [{ start_date: '9999-12-31T23:30:00-01:00', end_date: '9999-12-31T23:30:00-01:00' }, 'start_date'],
        ] as const) {
          const res = await t.http.post('/api/marketing-programs').set('Authorization', token).send(planBody(dates));
          expect({ dates, status: res.status, keys: Object.keys(res.body.errors ?? {}) }).toEqual({
            dates,
            status: 422,
            keys: expect.arrayContaining([key]),
          });
        }
        expect((await listAll(t, token, '/api/marketing-programs')).rows).toEqual(before.rows);
      });

      // src/common/validation/fields.ts (NumberField): 0.1 + 0.2 passes the two-decimals rule (within
      // its tolerance) but is stored unrounded. Observed on SQLite: budget 0.30000000000000004;
      // MariaDB's DECIMAL(15,2) gives 0.3. Both databases should answer the column's value.
      it('stores amounts at two decimals on every database', async () => {
        const program = await newProgram(t, token, { budget: 0.1 + 0.2 });
        expect(program.budget).toBe(0.3);
      });
    });
  });

  describe('updateMarketingProgram: PUT /api/marketing-programs/{id}', () => {
    updateRuleCases(ctx, programs);
  });

  describe('listMarketingPrograms: GET /api/marketing-programs', () => {
    listCases(ctx, programs);

    // Contract behaviour that rests on the shared code in src/common (a comment over a case names the file).
    describe('cursors forged for another sort', () => {
      let t: TestApp;
      let token: string;

      beforeAll(async () => {
        // An admin of a tenant of its own.
        t = ctx.t;
        token = (await newUser(t, ctx.root, ['admin'], (await newTenant(t, ctx.root)).id)).token;
      });

      // src/common/resources/cursor.ts (decodeCursor) and keyset-paginator.ts: a cursor's value is not
      // checked against the sort's type, so a forged cursor runs a comparison with junk. Observed:
      // 200 (SQLite answers rows compared with an invalid date, MariaDB an empty page).
      // API-CONVENTIONS §4: a bad cursor is a 422.
      it('answers 422 for a cursor whose value does not fit its sort', async () => {
        await newProgram(t, token);
        const cursor = (value: unknown[]) => Buffer.from(JSON.stringify(value)).toString('base64url');
        for (const [sort, value] of [
          ['start_date', 'garbage'],
          ['start_date', null],
          ['-created_at', 12],
          ['budget', 'abc'],
          ['name', null],
        ] as const) {
          const res = await t.http
            .get('/api/marketing-programs')
            .query({ sort, cursor: cursor([sort, value, 1]) })
            .set('Authorization', token);
          expect({ sort, value, status: res.status, keys: Object.keys(res.body.errors ?? {}) }).toEqual({
            sort,
            value,
            status: 422,
            keys: ['cursor'],
          });
        }
      });
    });
  });

  describe('deleteMarketingProgram: DELETE /api/marketing-programs/{id}', () => {
    it('refuses to delete a program that has campaign groups (409 naming them)', async () => {
      const { t, admin } = ctx;
      const program = await newProgram(t, admin.token);
      const group = await newGroup(t, admin.token, program.id);
      const res = await t.http.delete(`/api/marketing-programs/${program.id}`).set('Authorization', admin.token);
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ message: expect.stringMatching(/\b1 campaign group\b/) });
      expect(res.headers['cache-control']).toBe('no-cache, private');
      await t.http.get(`/api/marketing-programs/${program.id}`).set('Authorization', admin.token).expect(200);
      await t.http.delete(`/api/campaign-groups/${group.id}`).set('Authorization', admin.token).expect(200);
      await t.http.delete(`/api/marketing-programs/${program.id}`).set('Authorization', admin.token).expect(200);
    });
  });
});
