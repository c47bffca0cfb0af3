import { Injectable } from '@nestjs/common';
import { ValidationFailed } from '../../common/http/api-exception.js';
import { decimal } from '../../common/resources/dto-values.js';
import { DeletionEffects } from '../../common/resources/deletion-effects.js';
import { ResourceService } from '../../common/resources/resource.service.js';
import { Tables } from '../../common/persistence/tables.js';
import type { TreatmentGroupDto } from './dto/campaign-children.dto.js';
import { toTreatmentGroupResponse, type TreatmentGroupResponse } from './dto/marketing.responses.js';
import { TreatmentGroup } from './entities/campaign-children.entity.js';
import { campaignsChanged } from './campaign-selection-version.js';
import { Campaign } from './entities/campaign.entity.js';
import { childColumns, NAMED_SORTS } from './plan-columns.js';

@Injectable()
export class TreatmentGroupsService extends ResourceService<TreatmentGroup, TreatmentGroupDto, TreatmentGroupResponse> {
  constructor(tables: Tables, effects: DeletionEffects) {
    super(tables, {
      entity: TreatmentGroup,
      resource: 'treatment_group',
      label: 'treatment group',
      // The allocation rule below reads the campaign's other groups: writes of one campaign's groups take turns.
      parent: { entity: Campaign, column: 'campaign_id', label: 'campaign', serializeOn: 'allocation_version' },
      sorts: NAMED_SORTS,
      filters: { q: ['name'] },
      toColumns: (dto, existing) => ({
        ...childColumns(dto, existing),
        type: dto.type,
        allocation_percentage: decimal(dto.allocation_percentage),
      }),
      toResponse: toTreatmentGroupResponse,
      /** The destination links that named the group keep going without it (src/app.module.ts). */
      beforeDelete: (group, tx) => effects.apply(TreatmentGroup, group, tx),
      /** The groups' bucket ranges are the campaign's assignments. */
      onChange: (group, tx) => campaignsChanged(tx, [group.campaign_id]),
      /** The campaign's groups add up to at most 100 %. */
      validate: async (dto, { tx, existing, parentId }) => {
        const others = await tx
          .table(TreatmentGroup)
          .sum('allocation_percentage', { campaign_id: parentId }, existing?.id);
        if (Math.round((others + dto.allocation_percentage) * 100) > 100 * 100) {
          throw ValidationFailed.field(
            'allocation_percentage',
            `The allocation percentages of a campaign's treatment groups must not add up to more than 100 (the other groups hold ${others}).`,
          );
        }
      },
    });
  }
}
