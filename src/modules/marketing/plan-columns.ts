import { dateValue, decimal, optional } from '../../common/resources/dto-values.js';
import type { Values } from '../../common/persistence/table-gateway.js';
import type { CampaignDto } from './dto/campaign.dto.js';
import type { PlanDto } from './dto/plan.dto.js';
import type { PlanEntity } from './entities/plan.entity.js';

export const NAMED_SORTS = { name: 'string', created_at: 'date' } as const;
export const PLAN_SORTS = { ...NAMED_SORTS, start_date: 'date', end_date: 'date', budget: 'number' } as const;
export const PLAN_FILTERS = { q: ['name' as const], exact: ['status' as const] };

/** The columns programs, groups and campaigns share. */
export const planColumns = (dto: PlanDto | CampaignDto, existing?: PlanEntity): Values<PlanEntity> => ({
  name: dto.name,
  description: optional(dto.description, existing?.description, null),
  status: dto.status,
  start_date: dateValue(dto.start_date),
  end_date: dateValue(dto.end_date),
  budget: decimal(dto.budget),
  goal: dto.goal,
});

/** name and description of the records that live inside a campaign. */
export const childColumns = (
  dto: { name: string; description?: string | null },
  existing?: { description: string | null },
) => ({ name: dto.name, description: optional(dto.description, existing?.description, null) });
