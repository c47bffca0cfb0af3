import { getMetadataArgsStorage } from 'typeorm';
import { ActivityLog } from '../common/activity/activity-log.entity.js';
import { toActivityLogResponse, ActivityLogResponse } from './admin/dto/activity-log.dto.js';
import { TenantResponse, toTenantResponse } from './admin/dto/tenant.dto.js';
import {
  AudienceResponse,
  AudienceRuleResponse,
  CampaignAudienceResponse,
  SubAudienceResponse,
  toAudienceResponse,
  toAudienceRuleResponse,
  toCampaignAudienceResponse,
  toSubAudienceResponse,
} from './audience/dto/audience.response.js';
import {
  AssignmentGroupResponse,
  AssignmentResponse,
  AssignmentSummaryResponse,
  toAssignmentGroupResponse,
  toAssignmentResponse,
  toAssignmentSummaryResponse,
} from './audience/dto/assignment.response.js';
import {
  AudienceCountResponse,
  AudiencePreviewResponse,
  toAudienceCountResponse,
  toAudiencePreviewResponse,
} from './audience/dto/members.response.js';
import { Audience, AudienceRule, CampaignAudience, SubAudience } from './audience/entities/audience.entity.js';
import { toUserResponse, UserResponse } from './auth/dto/user.response.js';
import { Tenant } from './auth/entities/tenant.entity.js';
import { User } from './auth/entities/user.entity.js';
import { CustomerResponse, toCustomerResponse } from './customer/dto/customer.response.js';
import { Customer } from './customer/entities/customer.entity.js';
import {
  CampaignDestinationResponse,
  DestinationResponse,
  toCampaignDestinationResponse,
  toDestinationResponse,
} from './destination/dto/destination.response.js';
import { CampaignDestination, Destination } from './destination/entities/destination.entity.js';
import { CampaignValidationRuleResponse } from './marketing/dto/campaign-validation-rule.dto.js';
import {
  CampaignGroupResponse,
  CampaignKpiResponse,
  CampaignResponse,
  CustomerGoalResponse,
  MarketingProgramResponse,
  toCampaignGroupResponse,
  toCampaignKpiResponse,
  toCampaignResponse,
  toCustomerGoalResponse,
  toMarketingProgramResponse,
  toTreatmentGroupResponse,
  TreatmentGroupResponse,
} from './marketing/dto/marketing.responses.js';
import { CampaignKpi, CustomerGoal, TreatmentGroup } from './marketing/entities/campaign-children.entity.js';
import { CampaignGroup } from './marketing/entities/campaign-group.entity.js';
import { CampaignValidationRule } from './marketing/entities/campaign-validation-rule.entity.js';
import { Campaign } from './marketing/entities/campaign.entity.js';
import { MarketingProgram } from './marketing/entities/marketing-program.entity.js';
import {
  HandoverAudience,
  HandoverTreatmentGroup,
  toHandoverAudience,
  toHandoverTreatmentGroup,
} from './privacy/dto/customer-handover.response.js';
import { toValidationRuleResponse, ValidationRuleResponse } from './validation/dto/validation-rule.response.js';
import { ValidationRule } from './validation/entities/validation-rule.entity.js';

type Entity = abstract new () => object;

/** Where @nestjs/swagger keeps a class's @ApiProperty names (its DECORATORS.API_MODEL_PROPERTIES_ARRAY). */
const SWAGGER_PROPERTIES = 'swagger/apiModelPropertiesArray';

/** Every column an entity maps (its own and inherited), from TypeORM's decorator metadata. */
function columnsOf(entity: Entity): { name: string; type: unknown }[] {
  const chain: unknown[] = [];
  for (let c: unknown = entity; c && c !== Function.prototype; c = Object.getPrototypeOf(c)) chain.push(c);
  return getMetadataArgsStorage()
    .columns.filter((c) => chain.includes(c.target))
    .map((c) => ({
      name: c.propertyName,
      type: c.options.type,
    }));
}

/**
 * A row as the tenant-scoped table hands it over: every column of the entity filled with a value of
 * its kind, plus a column no mapper knows (as a column added to an entity tomorrow would be).
 */
function sampleRow<E>(entity: Entity): E {
  const row: Record<string, unknown> = { column_added_later: 'must never leave' };
  for (const { name, type } of columnsOf(entity)) {
    const kind = typeof type === 'function' ? type.name.toLowerCase() : String(type);
    row[name] = ['datetime', 'timestamp', 'date'].includes(kind)
      ? new Date('2026-01-02T03:04:05Z')
      : ['bigint', 'int', 'integer', 'decimal'].includes(kind)
        ? 7
        : kind === 'boolean'
          ? true
          : `${name} value`;
  }
  return row as E;
}

/** The fields a response class documents (its @ApiProperty decorators, inherited ones included). */
function documented(response: abstract new () => object): string[] {
  const names = (Reflect.getMetadata(SWAGGER_PROPERTIES, response.prototype) ?? []) as string[];
  return [...new Set(names.map((n) => n.replace(/^:/, '')))].sort();
}

const audience = toAudienceResponse(sampleRow(Audience));
const assignmentGroup = toAssignmentGroupResponse(sampleRow(TreatmentGroup), 6);
const memberCount = { count: 7, evaluable: true, computedAt: new Date('2026-01-02T03:04:05Z') };
const destination = toDestinationResponse(sampleRow(Destination));
const rule = toValidationRuleResponse(sampleRow(ValidationRule));

const MAPPERS: [string, abstract new () => object, () => object][] = [
  ['customer', CustomerResponse, () => toCustomerResponse(sampleRow(Customer))],
  ['marketing program', MarketingProgramResponse, () => toMarketingProgramResponse(sampleRow(MarketingProgram))],
  ['campaign group', CampaignGroupResponse, () => toCampaignGroupResponse(sampleRow(CampaignGroup))],
  ['campaign', CampaignResponse, () => toCampaignResponse(sampleRow(Campaign))],
  ['treatment group', TreatmentGroupResponse, () => toTreatmentGroupResponse(sampleRow(TreatmentGroup))],
  ['campaign KPI', CampaignKpiResponse, () => toCampaignKpiResponse(sampleRow(CampaignKpi))],
  [
    'customer goal',
    CustomerGoalResponse,
    // `conditions` holds the goal's `where` as JSON text.
    () => toCustomerGoalResponse({ ...sampleRow<CustomerGoal>(CustomerGoal), conditions: '[]' }),
  ],
  ['audience', AudienceResponse, () => audience],
  ['audience rule', AudienceRuleResponse, () => toAudienceRuleResponse(sampleRow(AudienceRule))],
  ['sub-audience', SubAudienceResponse, () => toSubAudienceResponse(sampleRow(SubAudience))],
  [
    'campaign audience',
    CampaignAudienceResponse,
    () => toCampaignAudienceResponse(sampleRow(CampaignAudience), audience),
  ],
  ['audience count', AudienceCountResponse, () => toAudienceCountResponse(memberCount)],
  [
    'audience preview',
    AudiencePreviewResponse,
    () => toAudiencePreviewResponse(memberCount, [toCustomerResponse(sampleRow(Customer))]),
  ],
  [
    'assignment',
    AssignmentResponse,
    () => toAssignmentResponse({ campaignId: 1, customerId: 2, eligible: true, bucket: 42, groupId: 3 }),
  ],
  ['assignment group', AssignmentGroupResponse, () => assignmentGroup],
  ['assignment summary', AssignmentSummaryResponse, () => toAssignmentSummaryResponse(10, 4, [assignmentGroup])],
  ['destination', DestinationResponse, () => destination],
  [
    'campaign destination',
    CampaignDestinationResponse,
    () => toCampaignDestinationResponse(sampleRow(CampaignDestination), destination),
  ],
  ['validation rule', ValidationRuleResponse, () => rule],
  [
    'campaign validation rule',
    CampaignValidationRuleResponse,
    () => ({ ...rule, rule_override: sampleRow<CampaignValidationRule>(CampaignValidationRule).rule_override }),
  ],
  ['user', UserResponse, () => toUserResponse(sampleRow(User), ['viewer'])],
  ['tenant', TenantResponse, () => toTenantResponse(sampleRow(Tenant))],
  [
    'activity-log entry',
    ActivityLogResponse,
    () => toActivityLogResponse({ ...sampleRow<ActivityLog>(ActivityLog), properties: '{"attributes":{}}' }),
  ],
  ['hand-over audience', HandoverAudience, () => toHandoverAudience(sampleRow(Audience))],
  [
    'hand-over treatment group',
    HandoverTreatmentGroup,
    () =>
      toHandoverTreatmentGroup(
        toAssignmentResponse({ campaignId: 1, customerId: 2, eligible: true, bucket: 42, groupId: 3 }),
      ),
  ],
];

describe('response mappers', () => {
  it.each(MAPPERS)('%s: publishes exactly the fields its response class documents', (_name, response, map) => {
    expect(Object.keys(map()).sort()).toEqual(documented(response));
  });

  it.each(MAPPERS)('%s: keeps a column no mapper names private', (_name, _response, map) => {
    expect(map()).not.toHaveProperty('column_added_later');
  });

  it('never publishes a password, token or soft-delete marker', () => {
    const published = JSON.stringify(MAPPERS.map(([, , map]) => map()));
    expect(published).not.toMatch(/password|remember_token|deleted_at|access_version/);
  });
});
