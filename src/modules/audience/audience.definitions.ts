import { Inject, Injectable } from '@nestjs/common';
import { In, type EntityManager } from 'typeorm';
import type { AssociationDefinition } from '../../common/resources/association.js';
import { refuseIfUsed } from '../../common/resources/delete-conflict.js';
import { optional } from '../../common/resources/dto-values.js';
import { ReferenceChecker } from '../../common/resources/reference-checker.js';
import type { ResourceDefinition, WriteContext } from '../../common/resources/resource-definition.js';
import { resourceServiceToken } from '../../common/resources/resource.providers.js';
import type { ResourceService } from '../../common/resources/resource.service.js';
import { Campaign } from '../marketing/entities/campaign.entity.js';
import type {
  AudienceDto,
  AudienceResponse,
  CampaignAudienceDto,
  CampaignAudienceResponse,
  CreateSubAudienceDto,
  UpdateSubAudienceDto,
} from './dto/audience.dto.js';
import { Audience, AudienceRule, CampaignAudience, SubAudience } from './entities/audience.entity.js';

const NAMED_SORTS = { name: 'string', created_at: 'date' } as const;
const CAMPAIGN = { entity: Campaign, column: 'campaign_id', label: 'campaign' };

@Injectable()
export class AudiencesDefinition implements ResourceDefinition<Audience, AudienceResponse, AudienceDto> {
  entity = Audience;
  label = 'audience';
  sorts = NAMED_SORTS;
  filters = { q: ['name'] };

  toColumns(dto: AudienceDto, existing?: Audience): Partial<Audience> {
    return { name: dto.name, description: optional(dto.description, existing?.description, null) };
  }

  /** `rules` replaces the whole set, in the same transaction; left out, the rules stay. */
  async afterWrite(audience: Audience, dto: AudienceDto, { manager }: WriteContext<Audience>): Promise<void> {
    if (dto.rules === undefined) return;
    await manager.delete(AudienceRule, { audience_id: audience.id });
    if (dto.rules.length) {
      await manager.save(
        dto.rules.map((rule) =>
          manager.create(AudienceRule, {
            audience_id: audience.id,
            rule_type: rule.rule_type,
            rule_value: rule.rule_value,
          }),
        ),
        { chunk: 200 },
      );
    }
  }

  async decorate(audiences: Audience[], responses: AudienceResponse[], manager: EntityManager): Promise<void> {
    const rules = audiences.length
      ? await manager.find(AudienceRule, {
          where: { audience_id: In(audiences.map((a) => a.id)) },
          order: { id: 'ASC' },
        })
      : [];
    audiences.forEach((audience, index) => {
      responses[index].rules = rules
        .filter((rule) => Number(rule.audience_id) === Number(audience.id))
        .map((rule) => ({ id: Number(rule.id), rule_type: rule.rule_type, rule_value: rule.rule_value }));
    });
  }

  async beforeDelete(audience: Audience, manager: EntityManager): Promise<void> {
    const [campaigns, subAudiences] = await Promise.all([
      manager.count(CampaignAudience, { where: { audience_id: audience.id } }),
      manager.count(SubAudience, { where: { audience_id: audience.id } }),
    ]);
    refuseIfUsed('audience', [
      ['campaign', campaigns],
      ['sub-audience', subAudiences],
    ]);
  }
}

@Injectable()
export class SubAudiencesDefinition implements ResourceDefinition<
  SubAudience,
  unknown,
  CreateSubAudienceDto | UpdateSubAudienceDto
> {
  entity = SubAudience;
  label = 'sub-audience';
  parent = CAMPAIGN;
  sorts = NAMED_SORTS;
  filters = { q: ['name'] };

  constructor(private readonly references: ReferenceChecker) {}

  toColumns(dto: CreateSubAudienceDto | UpdateSubAudienceDto, existing?: SubAudience): Partial<SubAudience> {
    return {
      // The audience is chosen on create only.
      ...(existing ? {} : { audience_id: (dto as CreateSubAudienceDto).audience_id }),
      name: dto.name,
      description: optional(dto.description, existing?.description, null),
      segment_definition: dto.segment_definition,
    };
  }

  async validate(
    dto: CreateSubAudienceDto | UpdateSubAudienceDto,
    { manager, existing }: WriteContext<SubAudience>,
  ): Promise<void> {
    if (!existing)
      await this.references.find(manager, Audience, (dto as CreateSubAudienceDto).audience_id, 'audience_id');
  }
}

@Injectable()
export class CampaignAudiencesDefinition implements AssociationDefinition<
  CampaignAudience,
  CampaignAudienceDto,
  CampaignAudienceResponse
> {
  entity = CampaignAudience;
  owner = CAMPAIGN;
  target = { column: 'audience_id', label: 'audience' };
  unique = true;

  constructor(
    @Inject(resourceServiceToken(AudiencesDefinition))
    readonly targets: ResourceService<Audience, AudienceResponse>,
  ) {}

  targetId = (dto: CampaignAudienceDto) => dto.audience_id;
  toColumns = (dto: CampaignAudienceDto) => ({ segment_override: dto.segment_override ?? null });

  /** Each item is the audience record (with its rules) plus the link's segment_override. */
  present = (link: Record<string, unknown>, audience: AudienceResponse): CampaignAudienceResponse => ({
    ...audience,
    segment_override: link.segment_override as string | null,
  });
}
