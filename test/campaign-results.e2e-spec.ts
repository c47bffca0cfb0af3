import { login } from './support/auth.js';
import { created, dataOf, newWorkspace, type Row, type Workspace } from './support/campaign-fixtures.js';
import { Receiver, startDeliveryApp, type Any } from './support/destination-fixtures.js';
import {
  launch,
  linkWebhook,
  newCustomers,
  recipientsOf,
  runnableCampaign,
  runWhen,
  unique,
} from './support/run-fixtures.js';
import type { TestApp } from './support/test-app.js';

const GROUPS = [
  { name: 'Offer A', type: 'treatment', allocation_percentage: 40 },
  { name: 'Offer B', type: 'treatment', allocation_percentage: 30 },
  { name: 'Control', type: 'Control', allocation_percentage: 30 },
];
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface Member {
  customer: number;
  index: number;
  group: number;
  /** Epoch ms the window starts at: the first delivery, or the snapshot (control). */
  start: number;
  delivered: boolean;
  run: number;
}

type Planned = { event: string; at: number; properties?: Record<string, unknown> };

/**
 * What each member does, by its index, relative to the start of its window (its first delivery,
 * or its run's snapshot for the control). Every edge is here: an event exactly at the start (out),
 * one before it (out), an amount the goal's `where` refuses (out, and not summed), an amount sent as
 * a string (not a number: out), one ahead of now (in); for the 1-day signup window, exactly at its
 * end (in) and one ms after it (out). (The tracker takes timestamps up to 24 h ahead of now, so the
 * ends of windows are checked on the 1-day goal.)
 */
function plannedEvents(member: Member): Planned[] {
  const p = (at: number, amount: unknown): Planned => ({
    event: 'purchase',
    at: member.start + at,
    properties: { amount },
  });
  const events: Planned[] = [];
  switch (member.index % 5) {
    case 0:
      events.push(p(HOUR, 20), p(2 * HOUR, 5), p(3 * HOUR, 30));
      break;
    case 1:
      events.push(p(-60_000, 20));
      break;
    case 2:
      events.push(p(HOUR, '15'));
      break;
    case 3:
      // Ahead of now (up to 24 h is accepted), inside the window.
      events.push(p(20 * HOUR, 12));
      break;
    case 4:
      events.push(p(0, 100));
      break;
  }
  const signup = (at: number): Planned => ({ event: 'signup', at: member.start + at });
  events.push([signup(DAY), signup(DAY + 1), signup(12 * HOUR)][member.index % 3]);
  return events;
}

/** The expected conversions and values of a set of members, as the plan above makes them (JavaScript's reading). */
function expected(members: Member[]) {
  const purchase = { converted: 0, value: 0 };
  const signup = { converted: 0 };
  for (const m of members) {
    const events = plannedEvents(m);
    const inWindow = events.filter((e) => {
      const amount = e.properties?.amount;
      return (
        e.event === 'purchase' &&
        e.at > m.start &&
        e.at <= m.start + 3 * DAY &&
        typeof amount === 'number' &&
        amount >= 10
      );
    });
    if (inWindow.length) purchase.converted++;
    purchase.value += inWindow.reduce((sum, e) => sum + (e.properties!.amount as number), 0);
    if (events.some((e) => e.event === 'signup' && e.at > m.start && e.at <= m.start + DAY)) signup.converted++;
  }
  return { purchase, signup };
}

/**
 * Campaign results end to end (docs/campaign-results.md): goals measured by events, a campaign
 * run to a local receiver, events tracked inside and outside every member's window, and every
 * count of the answer checked against the plan; filters, KPIs measured, tenants, permissions.
 */
describe('getCampaignResults: GET /api/campaigns/{id}/results', () => {
  let t: TestApp;
  let receiver: Receiver;
  let w: Workspace;
  let other: Workspace;

  const N = 40;
  const domain = `${unique()}.example`;
  let campaign: Row;
  let groups: Row[];
  let goals: Record<string, Row>;
  let runs: Row[];
  const members: Member[] = [];

  beforeAll(async () => {
    receiver = await new Receiver().start();
    t = await startDeliveryApp();
    const root = await login(t);
    w = await newWorkspace(t, root);
    other = await newWorkspace(t, root);
    const api = w.manager;

    const first = await newCustomers(api, N, domain);
    ({ campaign, groups } = await runnableCampaign(api, domain, GROUPS));
    await linkWebhook(api, campaign.id, receiver.url(`/results-${unique()}`));
    const goal = (body: Record<string, unknown>) =>
      created(
        api.post(`/api/campaigns/${campaign.id}/customer-goals`, { goal_type: 'conversion', target_value: 1, ...body }),
      );
    goals = {
      purchase: await goal({
        name: 'Purchase',
        event: 'purchase',
        where: [{ field: 'properties.amount', operator: 'gte', value: 10 }],
        value_property: 'amount',
      }),
      signup: await goal({ name: 'Signup', event: 'signup', window_days: 1 }),
      never: await goal({ name: 'Never tracked', event: 'never-tracked' }),
      descriptive: await goal({ name: 'Descriptive' }),
    };

    // Two runs: the second one takes in the newcomers only; the others stay in their first run.
    runs = [];
    for (const batch of [first, null]) {
      const ids =
        batch ??
        (await newCustomers(api, 10, domain, (i) => ({ external_id: `${domain}-new-${i}`, email: `n${i}@${domain}` })));
      const run = await launch(api, campaign.id);
      const done = await runWhen(api, run.id as number);
      expect(done.status).toBe('completed');
      runs.push(done);
      const recipients = await recipientsOf(api, run.id as number);
      const delivered = new Map(recipients.map((r) => [r.customer_id as number, r]));
      const known = new Set(members.map((m) => m.customer));
      const snapshot = Date.parse(done.snapshot_at as string);
      const control = groups.find((g) => g.type === 'Control')!;
      for (const id of ids) {
        if (known.has(id)) continue;
        const recipient = delivered.get(id);
        members.push({
          customer: id,
          index: members.length,
          group: recipient ? (recipient.treatment_group_id as number) : (control.id as number),
          start: recipient ? Date.parse(recipient.delivered_at as string) : snapshot,
          delivered: Boolean(recipient),
          run: done.id as number,
        });
      }
    }
    // Every customer is a member of each run that selected it, in the group the bucket gives it (the
    // control has no recipient); the results count each in its first run.
    const counted = runs.map((run) => (run.counts as Any).groups.reduce((s: number, g: Any) => s + g.members, 0));
    expect(counted).toEqual([N, N + 10]);
    expect(members).toHaveLength(N + 10);

    const items = members.flatMap((m) =>
      plannedEvents(m).map((e, k) => ({
        message_id: `m-${m.customer}-${k}`,
        customer_id: m.customer,
        event: e.event,
        timestamp: new Date(e.at).toISOString(),
        ...(e.properties ? { properties: e.properties } : {}),
      })),
    );
    const res = await api.post('/api/track', { events: items });
    expect(res.status).toBe(200);
    expect((res.body.data as Row[]).filter((r) => r.status !== 'accepted')).toEqual([]);
  }, 120_000);
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  const groupOf = (answer: Any, goalId: number, groupId: number) =>
    answer.goals.find((g: Any) => g.goal_id === goalId).groups.find((g: Any) => g.treatment_group_id === groupId);

  it('counts members, deliveries, conversions and values per group, each edge of the window as planned', async () => {
    const answer: Any = await dataOf(w.manager.get(`/api/campaigns/${campaign.id}/results`));
    expect(answer.computed_at).toEqual(expect.any(String));
    expect(answer.goals.map((g: Any) => [g.goal_id, g.measurable, g.window_days])).toEqual([
      [goals.purchase.id, true, 3],
      [goals.signup.id, true, 1],
      [goals.never.id, true, 3],
      [goals.descriptive.id, false, 3],
    ]);
    expect(answer.goals[3].groups).toEqual([]);
    for (const group of groups) {
      const mine = members.filter((m) => m.group === group.id);
      const want = expected(mine);
      const purchase = groupOf(answer, goals.purchase.id as number, group.id as number);
      expect(purchase).toMatchObject({
        name: group.name,
        type: group.type,
        members: mine.length,
        delivered: group.type === 'Control' ? 0 : mine.filter((m) => m.delivered).length,
        converted: want.purchase.converted,
        value_sum: want.purchase.value,
      });
      expect(purchase.rate).toBeCloseTo(mine.length ? want.purchase.converted / mine.length : 0, 12);
      expect(purchase.value_per_member).toBeCloseTo(mine.length ? want.purchase.value / mine.length : 0, 12);
      const signup = groupOf(answer, goals.signup.id as number, group.id as number);
      expect(signup).toMatchObject({ members: mine.length, converted: want.signup.converted, value_sum: 0 });
      expect(groupOf(answer, goals.never.id as number, group.id as number)).toMatchObject({
        members: mine.length,
        converted: 0,
        rate: 0,
        value_sum: 0,
      });
      if (group.type === 'Control') expect(purchase.vs_control).toBeNull();
      else if (mine.length && members.some((m) => m.group !== group.id))
        expect(purchase.vs_control).toEqual({
          absolute_lift: expect.any(Number),
          relative_lift: purchase.vs_control.relative_lift,
          relative_lift_ci: purchase.vs_control.relative_lift_ci,
          p_value: expect.any(Number),
          significant: expect.any(Boolean),
        });
    }
    // The whole campaign: two fifths of the members convert on the purchase, two thirds on the signup.
    const all = expected(members);
    const sum = (goalId: number, key: string) =>
      groups.reduce((n, g) => n + groupOf(answer, goalId, g.id as number)[key], 0);
    expect(sum(goals.purchase.id as number, 'converted')).toBe(all.purchase.converted);
    expect(all.purchase.converted).toBe(20);
    expect(sum(goals.purchase.id as number, 'value_sum')).toBe(all.purchase.value);
    expect(all.purchase.value).toBe(10 * 50 + 10 * 12);
    expect(all.signup.converted).toBe(17 + 16);
    expect(sum(goals.signup.id as number, 'converted')).toBe(all.signup.converted);
    expect(answer.srm).toEqual({ p_value: expect.any(Number), mismatch: expect.any(Boolean) });
    expect(JSON.stringify(answer)).not.toMatch(/NaN|Infinity/);
  });

  it("puts each conversion on the customer's timeline, at the converting event's timestamp", async () => {
    const api = w.manager;
    for (const m of members.slice(0, 10)) {
      const items = (await dataOf(
        api.get(`/api/customers/${m.customer}/timeline`, { kinds: 'conversion', limit: 100 }),
      )) as Any[];
      const want: Any[] = [];
      const purchase = plannedEvents(m).find(
        (e) =>
          e.event === 'purchase' &&
          e.at > m.start &&
          e.at <= m.start + 3 * DAY &&
          typeof e.properties?.amount === 'number' &&
          (e.properties.amount as number) >= 10,
      );
      const signup = plannedEvents(m).find((e) => e.event === 'signup' && e.at > m.start && e.at <= m.start + DAY);
      if (purchase) want.push({ goal: goals.purchase, at: purchase.at });
      if (signup) want.push({ goal: goals.signup, at: signup.at });
      want.sort((a, b) => b.at - a.at || b.goal.id - a.goal.id);
      expect(items).toEqual(
        want.map(({ goal, at }) => ({
          at: new Date(at).toISOString(),
          kind: 'conversion',
          type: goal.name,
          id: expect.any(Number),
          data: {
            campaign_id: campaign.id,
            goal_id: goal.id,
            event: goal.event,
            event_id: expect.any(Number),
            run_id: m.run,
            treatment_group_id: m.group,
          },
        })),
      );
    }
  });

  it('narrows to a goal or a run; the correction stays over every pair', async () => {
    const api = w.manager;
    const whole: Any = await dataOf(api.get(`/api/campaigns/${campaign.id}/results`));
    // Every call answers the same (MariaDB once answered a prepared statement's second run differently).
    for (let k = 0; k < 4; k++)
      expect(await dataOf(api.get(`/api/campaigns/${campaign.id}/results`))).toEqual({
        ...whole,
        computed_at: expect.any(String),
      });
    const one: Any = await dataOf(
      api.get(`/api/campaigns/${campaign.id}/results`, { goal_id: goals.signup.id as number }),
    );
    expect(one.goals).toEqual([whole.goals[1]]);
    expect(one.srm).toEqual(whole.srm);
    for (const run of runs) {
      const answer: Any = await dataOf(api.get(`/api/campaigns/${campaign.id}/results`, { run_id: run.id as number }));
      for (const group of groups) {
        const mine = members.filter((m) => m.group === group.id && m.run === run.id);
        expect(groupOf(answer, goals.purchase.id as number, group.id as number)).toMatchObject({
          members: mine.length,
          converted: expected(mine).purchase.converted,
          value_sum: expected(mine).purchase.value,
        });
      }
    }
    const second: Any = await dataOf(
      api.get(`/api/campaigns/${campaign.id}/results`, { run_id: runs[1].id as number }),
    );
    expect(groups.reduce((n, g) => n + groupOf(second, goals.purchase.id as number, g.id as number).members, 0)).toBe(
      10,
    );
  });

  it('answers 422 on a bad filter, 404 for another tenant, 200 for a viewer', async () => {
    const api = w.manager;
    const path = `/api/campaigns/${campaign.id}/results`;
    const { campaign: another } = await runnableCampaign(api, `${unique()}.example`, GROUPS);
    const foreignGoal = await created(
      api.post(`/api/campaigns/${another.id}/customer-goals`, { name: 'x', goal_type: 'x', target_value: 1 }),
    );
    for (const [query, key] of [
      [{ goal_id: foreignGoal.id }, 'goal_id'],
      [{ goal_id: 'abc' }, 'goal_id'],
      [{ run_id: 999_999_999 }, 'run_id'],
      [{ run_id: '0' }, 'run_id'],
    ] as const) {
      const res = await api.get(path, query as Any);
      expect({ status: res.status, keys: Object.keys(res.body.errors ?? {}) }).toEqual({ status: 422, keys: [key] });
    }
    expect((await other.manager.get(path)).status).toBe(404);
    expect((await api.get('/api/campaigns/999999999/results')).status).toBe(404);
    expect((await w.viewer.get(path)).status).toBe(200);
    // A campaign without runs: zeros and nulls.
    const empty: Any = await dataOf(api.get(`/api/campaigns/${another.id}/results`));
    expect(empty.srm).toEqual({ p_value: null, mismatch: false });
    expect(empty.goals).toEqual([
      { goal_id: foreignGoal.id, name: 'x', measurable: false, window_days: 3, groups: [] },
    ]);
  });

  it('checks the new goal fields with the rule grammar', async () => {
    const api = w.manager;
    const goalsPath = `/api/campaigns/${campaign.id}/customer-goals`;
    const base = { name: 'g', goal_type: 'x', target_value: 1 };
    for (const [body, key] of [
      [{ event: 'bad\nname' }, 'event'],
      [{ event: 'purchase', where: [{ field: 'amount', operator: 'gte', value: 1 }] }, 'where.0.field'],
      [{ event: 'purchase', where: [{ field: 'properties.a', operator: 'performed', value: 1 }] }, 'where.0.operator'],
      [{ event: 'purchase', where: [{ field: 'properties.a', operator: 'between', value: 1 }] }, 'where.0.value'],
      [{ event: 'purchase', where: {} }, 'where'],
      [{ where: [{ field: 'properties.a', operator: 'exists' }] }, 'where'],
      [{ event: 'purchase', window_days: 31 }, 'window_days'],
      [{ event: 'purchase', window_days: 0 }, 'window_days'],
      [{ event: 'purchase', window_days: 1.5 }, 'window_days'],
      [{ event: 'purchase', value_property: 'a..b' }, 'value_property'],
    ] as const) {
      const res = await api.post(goalsPath, { ...base, ...body });
      expect({ body, status: res.status, keys: Object.keys(res.body.errors ?? {}) }).toEqual({
        body,
        status: 422,
        keys: [key],
      });
    }
    const made = await created(api.post(goalsPath, { ...base }));
    expect(made).toMatchObject({ event: null, where: null, window_days: 3, value_property: null });
    const updated = await dataOf(
      api.put(`/api/customer-goals/${made.id}`, {
        ...base,
        event: 'x',
        where: [{ field: 'properties.a', operator: 'exists' }],
      }),
    );
    expect(updated).toMatchObject({
      event: 'x',
      where: [{ field: 'properties.a', operator: 'exists' }],
      window_days: 3,
    });
    await api.delete(`/api/customer-goals/${made.id}`);
  });

  it('measures the KPIs over the non-control members: in the results, GET and lists', async () => {
    const api = w.manager;
    const kpisPath = `/api/campaigns/${campaign.id}/kpis`;
    const kpi = (body: Record<string, unknown>) =>
      created(api.post(kpisPath, { name: `K ${body.kpi_type}`, target_value: 1, ...body }));
    const conversions = await kpi({ kpi_type: 'conversions', goal_id: goals.purchase.id, target_value: 1000 });
    const rate = await kpi({ kpi_type: 'conversion_rate', goal_id: goals.purchase.id, target_value: 0.1 });
    const value = await kpi({ kpi_type: 'value', goal_id: goals.purchase.id, actual_value: 5 });
    const delivered = await kpi({ kpi_type: 'delivered' });
    const other = await kpi({ kpi_type: 'revenue', goal_id: goals.purchase.id });
    const { campaign: another } = await runnableCampaign(api, `${unique()}.example`, GROUPS);
    const foreign = await created(
      api.post(`/api/campaigns/${another.id}/customer-goals`, { name: 'x', goal_type: 'x', target_value: 1 }),
    );
    const refused = await api.post(kpisPath, {
      name: 'k',
      kpi_type: 'conversions',
      target_value: 1,
      goal_id: foreign.id,
    });
    expect({ status: refused.status, keys: Object.keys(refused.body.errors ?? {}) }).toEqual({
      status: 422,
      keys: ['goal_id'],
    });

    const treated = members.filter((m) => groups.find((g) => g.id === m.group)!.type !== 'Control');
    const want = expected(treated);
    const answer: Any = await dataOf(api.get(`/api/campaigns/${campaign.id}/results`));
    const byId = new Map(answer.kpis.map((k: Any) => [k.kpi_id, k]));
    expect(byId.get(conversions.id)).toEqual({
      kpi_id: conversions.id,
      name: conversions.name,
      kpi_type: 'conversions',
      target_value: 1000,
      measured_value: want.purchase.converted,
      on_track: false,
    });
    expect((byId.get(rate.id) as Any).measured_value).toBeCloseTo(want.purchase.converted / treated.length, 12);
    expect((byId.get(value.id) as Any).measured_value).toBe(want.purchase.value);
    expect(byId.get(delivered.id)).toMatchObject({
      measured_value: treated.filter((m) => m.delivered).length,
      on_track: true,
    });
    expect(byId.get(other.id)).toMatchObject({ measured_value: null, on_track: null });

    const got = await dataOf(api.get(`/api/campaign-kpis/${value.id}`));
    expect(got).toMatchObject({ actual_value: 5, goal_id: goals.purchase.id, measured_value: want.purchase.value });
    expect(got.measured_at).toEqual(expect.any(String));
    const list = await dataOf(api.get(kpisPath));
    expect(list.find((k: Row) => k.id === conversions.id)).toMatchObject({ measured_value: want.purchase.converted });
    expect(list.find((k: Row) => k.id === other.id)).toMatchObject({ measured_value: null, measured_at: null });

    // A KPI whose goal is deleted is measured on nothing.
    const spare = await created(
      api.post(`/api/campaigns/${campaign.id}/customer-goals`, {
        name: 'Spare',
        goal_type: 'x',
        target_value: 1,
        event: 'purchase',
      }),
    );
    const onSpare = await kpi({ kpi_type: 'conversions', goal_id: spare.id });
    expect(onSpare.measured_value).toEqual(expect.any(Number));
    expect((await api.delete(`/api/customer-goals/${spare.id}`)).status).toBe(200);
    expect(await dataOf(api.get(`/api/campaign-kpis/${onSpare.id}`))).toMatchObject({
      goal_id: null,
      measured_value: null,
      measured_at: null,
    });
  });
});
