import { createResourceController } from '../../common/resources/resource.controller.js';
import { NamedListQueryDto } from '../../common/resources/list-query.dto.js';
import { CampaignKpiDto, CustomerGoalDto, TreatmentGroupDto } from './dto/campaign-children.dto.js';
import {
  CampaignGroupResponse,
  CampaignKpiResponse,
  CampaignResponse,
  CustomerGoalResponse,
  MarketingProgramResponse,
  TreatmentGroupResponse,
} from './dto/marketing.responses.js';
import { CampaignDto, PlanDto, PlanListQueryDto } from './dto/plan.dto.js';
import {
  CampaignGroupsDefinition,
  CampaignKpisDefinition,
  CampaignsDefinition,
  CustomerGoalsDefinition,
  MarketingProgramsDefinition,
  TreatmentGroupsDefinition,
} from './marketing.definitions.js';

const marketing = { view: 'marketing.view', manage: 'marketing.manage' } as const;

export const MarketingProgramsController = createResourceController({
  definition: MarketingProgramsDefinition,
  tag: 'Marketing programs',
  names: ['marketing program', 'marketing programs'],
  permissions: marketing,
  routes: { collection: 'marketing-programs', item: 'marketing-programs/:id', itemParam: 'id' },
  response: MarketingProgramResponse,
  createDto: PlanDto,
  updateDto: PlanDto,
  listQuery: PlanListQueryDto,
});

export const CampaignGroupsController = createResourceController({
  definition: CampaignGroupsDefinition,
  tag: 'Campaign groups',
  names: ['campaign group', 'campaign groups'],
  permissions: marketing,
  routes: {
    collection: 'marketing-programs/:program_id/campaign-groups',
    parentParam: 'program_id',
    item: 'campaign-groups/:id',
    itemParam: 'id',
  },
  response: CampaignGroupResponse,
  createDto: PlanDto,
  updateDto: PlanDto,
  listQuery: PlanListQueryDto,
});

export const CampaignsController = createResourceController({
  definition: CampaignsDefinition,
  tag: 'Campaigns',
  names: ['campaign', 'campaigns'],
  permissions: marketing,
  routes: {
    collection: 'campaign-groups/:group_id/campaigns',
    parentParam: 'group_id',
    item: 'campaigns/:id',
    itemParam: 'id',
  },
  response: CampaignResponse,
  createDto: CampaignDto,
  updateDto: CampaignDto,
  listQuery: PlanListQueryDto,
});

export const TreatmentGroupsController = createResourceController({
  definition: TreatmentGroupsDefinition,
  tag: 'Treatment groups',
  names: ['treatment group', 'treatment groups'],
  permissions: marketing,
  routes: {
    collection: 'campaigns/:campaign_id/treatment-groups',
    parentParam: 'campaign_id',
    item: 'treatment-groups/:id',
    itemParam: 'id',
  },
  response: TreatmentGroupResponse,
  createDto: TreatmentGroupDto,
  updateDto: TreatmentGroupDto,
  listQuery: NamedListQueryDto,
});

export const CampaignKpisController = createResourceController({
  definition: CampaignKpisDefinition,
  tag: 'KPIs and customer goals',
  names: ['campaign KPI', 'campaign KPIs'],
  permissions: marketing,
  routes: {
    collection: 'campaigns/:campaign_id/kpis',
    parentParam: 'campaign_id',
    item: 'campaign-kpis/:kpi_id',
    itemParam: 'kpi_id',
  },
  response: CampaignKpiResponse,
  createDto: CampaignKpiDto,
  updateDto: CampaignKpiDto,
  listQuery: NamedListQueryDto,
});

// INTERFACE.md lists no route to read one customer goal.
export const CustomerGoalsController = createResourceController({
  definition: CustomerGoalsDefinition,
  tag: 'KPIs and customer goals',
  names: ['customer goal', 'customer goals'],
  without: ['get'],
  permissions: marketing,
  routes: {
    collection: 'campaigns/:campaign_id/customer-goals',
    parentParam: 'campaign_id',
    item: 'customer-goals/:goal_id',
    itemParam: 'goal_id',
  },
  response: CustomerGoalResponse,
  createDto: CustomerGoalDto,
  updateDto: CustomerGoalDto,
  listQuery: NamedListQueryDto,
});
