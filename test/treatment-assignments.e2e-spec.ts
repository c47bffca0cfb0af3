import { createHash } from 'node:crypto';
import { login } from './support/auth.js';
import {
  MISSING_IDS,
  client,
  created,
  dataOf,
  newAudience,
  newCampaign,
  newTreatmentGroup,
  newWorkspace,
  startApp,
  type Body,
  type Client,
  type Row,
  type Workspace,
} from './support/campaign-fixtures.js';
import { createTestApp, type TestApp } from './support/test-app.js';
import { newRole, seedCustomers, userWithRole, type CustomerSeed } from './audience-fixtures.js';

/**
 * Treatment assignment through the API, checked against the formula computed here with
 * node:crypto: bucket = first 4 bytes of SHA-256("<campaign_id>:<customer_id>") as an unsigned
 * big-endian integer mod 10,000; groups ordered by id take consecutive ranges from 0, each
 * allocation × 100 buckets wide; eligible = member of one of the campaign's audiences (after
 * segment_override).
 */
const bucketOf = (campaignId: number, customerId: number) =>
  createHash('sha256').update(`${campaignId}:${customerId}`).digest().readUInt32BE(0) % 10_000;

function groupOf(bucket: number, groups: Row[]): number | null {
  let from = 0;
  for (const group of [...groups].sort((x, y) => x.id - y.id)) {
    const to = from + Math.round(Number(group.allocation_percentage) * 100);
    if (bucket >= from && bucket < to) return group.id;
    from = to;
  }
  return null;
}

const N = 40;
/** Customer i: plan pro on even i, inactive every third, an @b.example address every fifth. */
const SEEDS: CustomerSeed[] = Array.from({ length: N }, (_, i) => ({
  body: {
    external_id: `a${i}`,
    email: `c${i}@${i % 5 === 0 ? 'b' : 'a'}.example`,
    is_active: i % 3 !== 0,
    attributes: JSON.stringify({ plan: i % 2 === 0 ? 'pro' : 'free', n: i }),
  },
  created: { daysAgo: 1 },
}));
/** The campaign below: pro and active (the first audience, narrowed), or an @b.example address (the second). */
const eligibleIndex = (i: number) => (i % 2 === 0 && i % 3 !== 0) || i % 5 === 0;

const rule = (field: string, operator: string, rule_value: string): Body => ({
  rule_type: field,
  rule_value,
  field,
  operator,
});

describe('getCampaignAssignment, getCampaignAssignmentSummary: treatment assignment', () => {
  let t: TestApp;
  let root: string;
  let a: Workspace;
  let b: Workspace;
  let api: Client;
  let customers: Row[];
  let campaign: Row;
  let groups: Row[];
  /** A second instance over the same database. */
  let second: TestApp;

  beforeAll(async () => {
    t = await startApp();
    second = await createTestApp({
      sharedWith: t,
      config: { rateLimitPerMinute: 100_000, authAttemptsPerMinute: 100_000 },
    });
    root = await login(t);
    a = await newWorkspace(t, root);
    b = await newWorkspace(t, root);
    api = a.manager;
    customers = [...(await seedCustomers(t, api, SEEDS)).values()];
    campaign = await newCampaign(api);
    groups = [
      await newTreatmentGroup(api, campaign.id, { name: 'A', allocation_percentage: 25.5 }),
      await newTreatmentGroup(api, campaign.id, { name: 'empty', allocation_percentage: 0 }),
      await newTreatmentGroup(api, campaign.id, { name: 'C', allocation_percentage: 33.33 }),
      await newTreatmentGroup(api, campaign.id, { name: 'D', allocation_percentage: 20 }),
    ];
    const pro = await newAudience(api, { rules: [rule('attributes.plan', 'equals', 'pro')] });
    const lettered = await newAudience(api, { rules: [rule('email', 'ends_with', '@b.example')] });
    const tagged = await newAudience(api, { rules: [{ rule_type: 'note', rule_value: 'no field' }] });
    const links = `/api/campaigns/${campaign.id}/audiences`;
    await created(
      api.post(links, {
        audience_id: pro.id,
        segment_override: '{"field":"is_active","operator":"equals","value":true}',
      }),
    );
    await created(api.post(links, { audience_id: lettered.id, segment_override: '{"note":"kept as is"}' }));
    await created(api.post(links, { audience_id: tagged.id }));
  });
  afterAll(async () => {
    await second.app.close();
    await t.close();
  });

  const indexOf = (customer: Row) => Number(String(customer.external_id).slice(1));
  const expectedFor = (campaignId: number, customer: Row, eligible: boolean, inGroups: Row[]) => {
    const bucket = bucketOf(campaignId, customer.id);
    return {
      campaign_id: campaignId,
      customer_id: customer.id,
      eligible,
      bucket,
      treatment_group_id: eligible ? groupOf(bucket, inGroups) : null,
    };
  };

  it('gives each customer the bucket and group of the formula, eligible through the narrowed audiences', async () => {
    const answers = [];
    for (const customer of customers) {
      const res = await api.get(`/api/campaigns/${campaign.id}/assignments/${customer.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ code: 200, message: expect.any(String), data: expect.any(Object) });
      answers.push(res.body.data);
    }
    expect(answers).toEqual(
      customers.map((customer) => expectedFor(campaign.id, customer, eligibleIndex(indexOf(customer)), groups)),
    );
    // The data exercises every outcome: not eligible, held out, and more than one group.
    const eligible = answers.filter((x) => x.eligible);
    expect(eligible.length).toBeGreaterThan(10);
    expect(eligible.length).toBeLessThan(N);
    expect(eligible.some((x) => x.treatment_group_id === null)).toBe(true);
    expect(new Set(eligible.map((x) => x.treatment_group_id)).size).toBeGreaterThan(2);
  });

  it('summarises the eligible customers per group, groups ordered by id', async () => {
    const expected = customers
      .filter((customer) => eligibleIndex(indexOf(customer)))
      .map((customer) => groupOf(bucketOf(campaign.id, customer.id), groups));
    const summary = await dataOf(api.get(`/api/campaigns/${campaign.id}/assignment-summary`));
    expect(summary).toEqual({
      eligible: expected.length,
      held_out: expected.filter((g) => g === null).length,
      groups: groups.map((group) => ({
        treatment_group_id: group.id,
        name: group.name,
        allocation_percentage: group.allocation_percentage,
        customers: expected.filter((g) => g === group.id).length,
      })),
    });
    const published = summary.groups as Row[];
    expect(published.map((g) => g.allocation_percentage)).toEqual([25.5, 0, 33.33, 20]);
    expect(published[1].customers).toBe(0);
  });

  it('answers the same on every call and on every instance', async () => {
    const other = client(second, api.token);
    const summaryPath = `/api/campaigns/${campaign.id}/assignment-summary`;
    const first = await dataOf(api.get(summaryPath));
    expect(await dataOf(api.get(summaryPath))).toEqual(first);
    expect(await dataOf(other.get(summaryPath))).toEqual(first);
    for (const customer of customers.slice(0, 8)) {
      const path = `/api/campaigns/${campaign.id}/assignments/${customer.id}`;
      const answer = await dataOf(api.get(path));
      expect(await dataOf(api.get(path))).toEqual(answer);
      expect(await dataOf(other.get(path))).toEqual(answer);
    }
  });

  it('follows the campaign: its groups, its audiences and their overrides', async () => {
    const other = await newCampaign(api);
    const everyone = await newAudience(api, { rules: [rule('email', 'ends_with', '.example')] });
    const summaryOf = () => dataOf(api.get(`/api/campaigns/${other.id}/assignment-summary`));
    const one = customers[7];
    const assignment = () => dataOf(api.get(`/api/campaigns/${other.id}/assignments/${one.id}`));

    // No audience: nobody is eligible.
    expect(await summaryOf()).toEqual({ eligible: 0, held_out: 0, groups: [] });
    expect(await assignment()).toEqual(expectedFor(other.id, one, false, []));

    // An audience, no groups: everyone eligible is held out.
    await created(api.post(`/api/campaigns/${other.id}/audiences`, { audience_id: everyone.id }));
    expect(await summaryOf()).toEqual({ eligible: N, held_out: N, groups: [] });
    expect(await assignment()).toEqual(expectedFor(other.id, one, true, []));

    // One group of 100 %: everyone eligible is in it.
    const all = await newTreatmentGroup(api, other.id, { name: 'all', allocation_percentage: 100 });
    expect(await summaryOf()).toEqual({
      eligible: N,
      held_out: 0,
      groups: [{ treatment_group_id: all.id, name: 'all', allocation_percentage: 100, customers: N }],
    });
    expect((await assignment()).treatment_group_id).toBe(all.id);

    // A narrowing override on a second link: the campaign still has the first audience's members.
    const inactive = await newAudience(api, { rules: [rule('is_active', 'equals', 'false')] });
    await created(
      api.post(`/api/campaigns/${other.id}/audiences`, {
        audience_id: inactive.id,
        segment_override: '{"field":"email","operator":"starts_with","value":"nobody"}',
      }),
    );
    expect((await summaryOf()).eligible).toBe(N);
    // Without the first link, only the narrowed one is left, and it selects nobody.
    expect((await api.delete(`/api/campaigns/${other.id}/audiences/${everyone.id}`)).status).toBe(200);
    expect(await summaryOf()).toMatchObject({ eligible: 0, held_out: 0 });
    expect((await assignment()).eligible).toBe(false);
  });

  // An instance keeps each campaign's definition (groups, links, rules) under campaigns.selection_version
  // and checks that version in every lookup: a change made through another instance is never missed.
  it('follows every change made through another instance on its next lookup', async () => {
    const elsewhere = client(second, api.token);
    const other = await newCampaign(api);
    const one = customers[2]; // pro, active, not @b.example
    const audience = await newAudience(api, { rules: [rule('attributes.plan', 'equals', 'pro')] });
    const lookup = () => dataOf(elsewhere.get(`/api/campaigns/${other.id}/assignments/${one.id}`));

    expect(await lookup()).toEqual(expectedFor(other.id, one, false, []));
    await created(api.post(`/api/campaigns/${other.id}/audiences`, { audience_id: audience.id }));
    expect((await lookup()).eligible).toBe(true);

    const whole = await newTreatmentGroup(api, other.id, { name: 'whole', allocation_percentage: 100 });
    expect((await lookup()).treatment_group_id).toBe(whole.id);
    expect(
      (await api.put(`/api/treatment-groups/${whole.id}`, { name: 'none', type: 'control', allocation_percentage: 0 }))
        .status,
    ).toBe(200);
    expect((await lookup()).treatment_group_id).toBeNull();
    expect((await api.delete(`/api/treatment-groups/${whole.id}`)).status).toBe(200);
    const half = await newTreatmentGroup(api, other.id, { name: 'all again', allocation_percentage: 100 });
    expect((await lookup()).treatment_group_id).toBe(half.id);

    // The audience's rules, then its match, change whom it selects.
    const put = (body: Body) => api.put(`/api/audiences/${audience.id}`, { name: audience.name, ...body });
    expect((await put({ rules: [rule('attributes.plan', 'equals', 'free')] })).status).toBe(200);
    expect((await lookup()).eligible).toBe(false);
    expect(
      (
        await put({
          match: 'any',
          rules: [rule('attributes.plan', 'equals', 'free'), rule('is_active', 'equals', 'true')],
        })
      ).status,
    ).toBe(200);
    expect((await lookup()).eligible).toBe(true);
    // The match alone, the rules kept; and back.
    const sameRules = [rule('attributes.plan', 'equals', 'free'), rule('is_active', 'equals', 'true')];
    expect((await put({ match: 'all', rules: sameRules })).status).toBe(200);
    expect((await lookup()).eligible).toBe(false);
    expect((await put({ match: 'any' })).status).toBe(200);
    expect((await lookup()).eligible).toBe(true);

    // The customer itself is read live.
    expect((await api.put(`/api/customers/${one.id}`, { is_active: false })).status).toBe(200);
    expect((await lookup()).eligible).toBe(false);
    expect((await api.put(`/api/customers/${one.id}`, { is_active: true })).status).toBe(200);
    expect((await lookup()).eligible).toBe(true);

    // Unlinked: nobody; the campaign deleted: 404.
    expect((await api.delete(`/api/campaigns/${other.id}/audiences/${audience.id}`)).status).toBe(200);
    expect((await lookup()).eligible).toBe(false);
    expect((await api.delete(`/api/treatment-groups/${half.id}`)).status).toBe(200);
    expect((await api.delete(`/api/campaigns/${other.id}`)).status).toBe(200);
    expect((await elsewhere.get(`/api/campaigns/${other.id}/assignments/${one.id}`)).status).toBe(404);
  });

  it('answers 404 for unknown, malformed and other tenants’ campaigns and customers', async () => {
    const theirCampaign = await newCampaign(b.manager);
    const [theirCustomer] = [...(await seedCustomers(t, b.manager, SEEDS.slice(0, 1))).values()];
    const mine = customers[0];
    const paths = [
      ...MISSING_IDS.flatMap((id) => [
        `/api/campaigns/${id}/assignments/${mine.id}`,
        `/api/campaigns/${campaign.id}/assignments/${id}`,
        `/api/campaigns/${id}/assignment-summary`,
      ]),
      `/api/campaigns/${theirCampaign.id}/assignments/${mine.id}`,
      `/api/campaigns/${campaign.id}/assignments/${theirCustomer.id}`,
      `/api/campaigns/${theirCampaign.id}/assignments/${theirCustomer.id}`,
      `/api/campaigns/${theirCampaign.id}/assignment-summary`,
    ];
    for (const path of paths) {
      const res = await api.get(path);
      expect({ path, status: res.status, body: res.body }).toEqual({
        path,
        status: 404,
        body: { message: expect.any(String) },
      });
    }
    // Their own tenant reads them.
    const theirs = await dataOf(b.manager.get(`/api/campaigns/${theirCampaign.id}/assignments/${theirCustomer.id}`));
    expect(theirs).toEqual(expectedFor(theirCampaign.id, theirCustomer, false, []));
  });

  it('needs marketing.view (403 without it, 401 without a token)', async () => {
    await newRole(t, 'audience-viewer', ['audiences.view', 'customers.view']);
    const outsider = await userWithRole(t, root, 'audience-viewer', a.tenantId);
    for (const path of [
      `/api/campaigns/${campaign.id}/assignments/${customers[0].id}`,
      `/api/campaigns/${campaign.id}/assignment-summary`,
    ]) {
      expect({ path, status: (await outsider.get(path)).status }).toEqual({ path, status: 403 });
      expect((await outsider.get(path)).body).toEqual({ message: 'This action is unauthorized.' });
      expect({ path, status: (await a.viewer.get(path)).status }).toEqual({ path, status: 200 });
      expect({ path, status: (await t.http.get(path)).status }).toEqual({ path, status: 401 });
    }
  });
});
