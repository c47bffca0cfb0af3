import { systemAuth, type AuthContext } from '../../common/auth/auth-context.js';
import type { CampaignRun } from './entities/campaign-run.entity.js';

/** A run's own writes (its members, recipients, status): in its tenant, no user's, under the run's name. */
export const runAuth = (run: Pick<CampaignRun, 'id' | 'tenant_id'>): AuthContext =>
  systemAuth(run.tenant_id, `campaign-run-${run.id}`);
