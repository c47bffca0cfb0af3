import {
  newAudience,
  newCampaign,
  newDestination,
  newValidationRule,
  newWorkspace,
  startApp,
  type Client,
  type Row,
} from './support/campaign-fixtures.js';
import { Database } from '../src/common/persistence/database.js';
import type { TestApp } from './support/test-app.js';

const ROUNDS = 8;

interface Association {
  name: string;
  /** The target's own path, a new target, and whether deleting a linked target answers 409 (in use). */
  target: { path: string; create(api: Client): Promise<Row>; inUse: boolean };
  /** The link's path under a campaign, its body, and its table and column naming the target. */
  link: { path: string; body(targetId: number): object; table: string; column: string };
}

const associations: Association[] = [
  {
    name: 'campaign audience',
    target: { path: '/api/audiences', create: (api) => newAudience(api), inUse: true },
    link: {
      path: 'audiences',
      body: (id) => ({ audience_id: id }),
      table: 'campaign_audiences',
      column: 'audience_id',
    },
  },
  {
    name: 'campaign destination',
    target: { path: '/api/destinations', create: (api) => newDestination(api), inUse: true },
    link: {
      path: 'destinations',
      body: (id) => ({ destination_id: id, attribute_mapping: '{"email":"contact_email"}' }),
      table: 'campaign_destinations',
      column: 'destination_id',
    },
  },
  {
    name: 'campaign validation rule',
    target: { path: '/api/validation-rules', create: (api) => newValidationRule(api), inUse: false },
    link: {
      path: 'validation-rules',
      body: (id) => ({ validation_rule_id: id }),
      table: 'campaign_validation_rules',
      column: 'validation_rule_id',
    },
  },
  {
    name: 'sub-audience',
    target: { path: '/api/audiences', create: (api) => newAudience(api), inUse: true },
    link: {
      path: 'sub-audiences',
      body: (id) => ({ audience_id: id, name: 'Recent buyers', segment_definition: '{}' }),
      table: 'sub_audiences',
      column: 'audience_id',
    },
  },
];

/** The pairs of answers that may come out of the race: the link first, or the deletion first. */
function allowed(association: Association, end: 'target' | 'campaign'): string[] {
  if (end === 'campaign') return ['link 201, delete 200', 'link 404, delete 200'];
  return [
    `link 201, delete ${association.target.inUse ? 409 : 200}`,
    `link 422 on ${association.link.column}, delete 200`,
  ];
}

/**
 * A link posted while one of its two ends is deleted: one of them wins. The other answers its
 * documented status (the link 404 for a gone campaign, 422 for a gone target; the deletion of a
 * target in use 409), never 500, and no link to a deleted record remains.
 */
describe('createCampaignAudience, createCampaignDestination, createCampaignValidationRule, createSubAudience racing the deletion of either end', () => {
  let t: TestApp;
  let api: Client;

  beforeAll(async () => {
    t = await startApp();
    api = (await newWorkspace(t)).manager;
  });
  afterAll(() => t.close());

  /** Links in the table whose campaign or target is gone (or soft-deleted), whatever the API shows. */
  async function orphans(association: Association): Promise<unknown[]> {
    const { table, column } = association.link;
    const targetTable = association.target.path.replace('/api/', '').replace('-', '_');
    const softDeleted = targetTable === 'validation_rules' ? ' OR t.deleted_at IS NOT NULL' : '';
    return t.app.get(Database).query(
      `SELECT l.id FROM ${table} l
         LEFT JOIN campaigns c ON c.id = l.campaign_id
         LEFT JOIN ${targetTable} t ON t.id = l.${column}
        WHERE c.id IS NULL OR t.id IS NULL${softDeleted}`,
    );
  }

  for (const association of associations) {
    for (const end of ['target', 'campaign'] as const) {
      it(`${association.name}: deleting the ${end} while its link is posted`, async () => {
        for (let round = 0; round < ROUNDS; round++) {
          const campaign = await newCampaign(api);
          const target = await association.target.create(api);
          const deletePath =
            end === 'campaign' ? `/api/campaigns/${campaign.id}` : `${association.target.path}/${target.id}`;
          const [link, removal] = await Promise.all([
            api.post(`/api/campaigns/${campaign.id}/${association.link.path}`, association.link.body(target.id)),
            api.delete(deletePath),
          ]);
          const invalid = Object.keys((link.body as { errors?: object }).errors ?? {}).join(' ');
          const outcome = `link ${link.status}${invalid && ` on ${invalid}`}, delete ${removal.status}`;
          if (!allowed(association, end).includes(outcome))
            throw new Error(`round ${round}: ${outcome}: ${JSON.stringify([link.body, removal.body])}`);
        }
        expect(await orphans(association)).toEqual([]);
      });
    }
  }
});
