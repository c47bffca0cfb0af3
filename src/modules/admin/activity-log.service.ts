import { Injectable } from '@nestjs/common';
import { ActivityLog } from '../../common/activity/activity-log.entity.js';
import type { AuthContext } from '../../common/auth/auth-context.js';
import { isSuperAdmin } from '../../common/auth/auth-user.js';
import { Page } from '../../common/http/page.js';
import { pageRequest, type Condition } from '../../common/persistence/keyset.js';
import { Tables } from '../../common/persistence/tables.js';
import { toActivityLogResponse, type ActivityLogQueryDto, type ActivityLogResponse } from './dto/activity-log.dto.js';

const SORTS = { created_at: 'date' } as const;
const FILTERS = ['subject_type', 'subject_id', 'causer_id', 'event'] as const;

@Injectable()
export class ActivityLogService {
  constructor(private readonly tables: Tables) {}

  /** The caller's tenant; a super-admin sees every tenant unless they chose one with X-Tenant-ID. */
  async list(auth: AuthContext, query: ActivityLogQueryDto): Promise<Page<ActivityLogResponse>> {
    const conditions: Condition[] = FILTERS.filter((f) => query[f] !== undefined).map((f) => ({
      sql: `\`activity_log\`.\`${f}\` = ?`,
      params: [query[f]!],
    }));
    const acrossTenants = isSuperAdmin(auth.user) && !auth.tenantChosen;
    const entries = acrossTenants
      ? this.tables.readAcrossTenants(ActivityLog) // the one cross-tenant read of the log
      : this.tables.read(auth).table(ActivityLog);
    const { rows, meta } = await entries.page(pageRequest(query, SORTS), conditions, conditions.length > 0);
    return new Page(rows.map(toActivityLogResponse), meta);
  }
}
