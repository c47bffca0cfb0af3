import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, SelectQueryBuilder } from 'typeorm';
import { isSuperAdmin } from '../../common/auth/auth-user.js';
import type { Page } from '../../common/http/page.js';
import { paginate, resolveSort } from '../../common/resources/keyset-paginator.js';
import {
  InjectTenantRepository,
  type TenantScopedRepository,
} from '../../common/resources/tenant-scoped.repository.js';
import { RequestContext } from '../../common/tenancy/request-context.js';
import { toActivityLogResponse, type ActivityLogQueryDto, type ActivityLogResponse } from './dto/activity-log.dto.js';
import { ActivityLog } from './entities/activity-log.entity.js';

const SORTS = { created_at: 'date' } as const;

@Injectable()
export class ActivityLogService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectTenantRepository(ActivityLog) private readonly entries: TenantScopedRepository<ActivityLog>,
    private readonly context: RequestContext,
  ) {}

  /** The caller's tenant; a super-admin sees every tenant unless they chose one with X-Tenant-ID. */
  list(query: ActivityLogQueryDto): Promise<Page<ActivityLogResponse>> {
    const user = this.context.user();
    const acrossTenants = user !== undefined && isSuperAdmin(user) && !this.context.tenantChosen();
    const filtered = [query.subject_type, query.subject_id, query.causer_id, query.event].some((v) => v !== undefined);
    const sortField = resolveSort(query.sort, SORTS).field;
    const qb = acrossTenants ? this.listAcrossTenants() : this.entries.listQuery(sortField, filtered);
    if (query.subject_type)
      qb.andWhere('activity_log.subject_type = :subjectType', { subjectType: query.subject_type });
    if (query.subject_id) qb.andWhere('activity_log.subject_id = :subjectId', { subjectId: query.subject_id });
    if (query.causer_id) qb.andWhere('activity_log.causer_id = :causerId', { causerId: query.causer_id });
    if (query.event) qb.andWhere('activity_log.event = :event', { event: query.event });
    return paginate(qb, query, SORTS, (rows) => rows.map(toActivityLogResponse));
  }

  /** The one cross-tenant read of the log, for super-admins. */
  private listAcrossTenants(): SelectQueryBuilder<ActivityLog> {
    return this.dataSource.getRepository(ActivityLog).createQueryBuilder('activity_log');
  }
}
