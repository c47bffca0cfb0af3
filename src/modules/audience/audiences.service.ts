import { Injectable } from '@nestjs/common';
import { refuseIfUsed } from '../../common/resources/delete-conflict.js';
import { optional } from '../../common/resources/dto-values.js';
import { ResourceService } from '../../common/resources/resource.service.js';
import { Tables } from '../../common/persistence/tables.js';
import type { AudienceDto } from './dto/audience.dto.js';
import { toAudienceResponse, toAudienceRuleResponse, type AudienceResponse } from './dto/audience.response.js';
import { Audience, AudienceRule, CampaignAudience, SubAudience } from './entities/audience.entity.js';
import { DEFAULT_MATCH } from './rules/rule-grammar.js';
import { audienceChanged } from './campaign-definitions.js';

const NAMED_SORTS = { name: 'string', created_at: 'date' } as const;

/** A rule as stored: a descriptive rule has neither field nor operator (null). */
const ruleFields = (rule: {
  rule_type: string;
  rule_value: string;
  field?: string | null;
  operator?: string | null;
}) => ({
  rule_type: rule.rule_type,
  rule_value: rule.rule_value,
  field: rule.field ?? null,
  operator: rule.operator ?? null,
});

@Injectable()
export class AudiencesService extends ResourceService<Audience, AudienceDto, AudienceResponse> {
  constructor(tables: Tables) {
    super(tables, {
      entity: Audience,
      resource: 'audience',
      label: 'audience',
      sorts: NAMED_SORTS,
      filters: { q: ['name'] },
      toColumns: (dto, existing) => ({
        name: dto.name,
        description: optional(dto.description, existing?.description, null),
        match: optional(dto.match, existing?.match, DEFAULT_MATCH),
      }),
      toResponse: toAudienceResponse,

      /**
       * `rules` replaces the whole set, in the same transaction; left out, the rules stay. A change of
       * its match or rules changes whom the campaigns it is linked to select (a rename does not); a new
       * audience is linked to none, and a linked one cannot be deleted.
       */
      afterWrite: async (audience, dto, { tx, existing }) => {
        let rulesChanged = false;
        if (dto.rules !== undefined) {
          const rules = tx.children(AudienceRule, 'audience_id', [audience.id]);
          const before = existing ? (await rules.list()).map(ruleFields) : [];
          const after = dto.rules.map(ruleFields);
          await rules.replace(after);
          rulesChanged = existing !== undefined && JSON.stringify(before) !== JSON.stringify(after);
          // The rules are the audience's state too: a change of them alone is an update of the audience.
          if (rulesChanged) {
            audience.updated_at = await tx.table(Audience).updateParts(audience, { rules: after }, { rules: before });
          }
        }
        if (existing && (rulesChanged || audience.match !== existing.match)) await audienceChanged(tx, audience.id);
      },

      /** Each page's rules in one query. */
      decorate: async (audiences, responses, reads) => {
        const rules = await reads
          .children(
            AudienceRule,
            'audience_id',
            audiences.map((a) => a.id),
          )
          .list();
        audiences.forEach((audience, index) => {
          responses[index].rules = rules.filter((r) => r.audience_id === audience.id).map(toAudienceRuleResponse);
        });
      },

      beforeDelete: async (audience, tx) => {
        refuseIfUsed('audience', [
          ['campaign', await tx.table(CampaignAudience).count({ audience_id: audience.id })],
          ['sub-audience', await tx.table(SubAudience).count({ audience_id: audience.id })],
        ]);
      },
    });
  }
}
