import { Entity } from 'typeorm';
import {
  ForeignIdColumn,
  IdColumn,
  StringColumn,
  TextColumn,
  Timestamped,
} from '../../../common/persistence/columns.js';
import { TenantOwnedEntity } from '../../../common/persistence/tenant-owned.entity.js';
import { DEFAULT_MATCH, type MatchMode } from '../rules/rule-grammar.js';
import { SortKeyColumn } from '../../../common/persistence/sort-key.js';

@Entity('audiences')
export class Audience extends TenantOwnedEntity {
  @StringColumn()
  name: string;

  @SortKeyColumn('name')
  name_key: string | null;

  @TextColumn({ nullable: true })
  description: string | null;

  /** Whether a customer must match `all` or `any` of the evaluable rules (`match` is reserved in MySQL: quote it). */
  @StringColumn(8, { default: DEFAULT_MATCH })
  match: MatchMode;
}

/** The rules' table, for the hand-written join of a campaign's eligibility (it has no tenant column). */
export const AUDIENCE_RULES_TABLE = 'audience_rules';

/** One rule of an audience; the set is replaced as a whole by a PUT with `rules`. */
@Entity(AUDIENCE_RULES_TABLE)
export class AudienceRule extends Timestamped {
  @IdColumn()
  id: number;

  @ForeignIdColumn()
  audience_id: number;

  @StringColumn()
  rule_type: string;

  @StringColumn()
  rule_value: string;

  /** The customer field the rule tests; null (with `operator`) on a descriptive rule. */
  @StringColumn(255, { nullable: true })
  field: string | null;

  @StringColumn(32, { nullable: true })
  operator: string | null;
}

@Entity('sub_audiences')
export class SubAudience extends TenantOwnedEntity {
  @ForeignIdColumn()
  campaign_id: number;

  @ForeignIdColumn()
  audience_id: number;

  @StringColumn()
  name: string;

  @SortKeyColumn('name')
  name_key: string | null;

  @TextColumn({ nullable: true })
  description: string | null;

  @TextColumn()
  segment_definition: string;
}

@Entity('campaign_audiences')
export class CampaignAudience extends TenantOwnedEntity {
  @ForeignIdColumn()
  campaign_id: number;

  @ForeignIdColumn()
  audience_id: number;

  @TextColumn({ nullable: true })
  segment_override: string | null;
}
