import { toIso } from './serialize.js';

/** The fields every tenant-owned record's answer starts and ends with (API-CONVENTIONS §3). */
export const recordFields = (row: {
  id: number;
  tenant_id: number;
  created_at: Date | null;
  updated_at: Date | null;
}) => ({
  id: row.id,
  tenant_id: row.tenant_id,
  created_at: toIso(row.created_at),
  updated_at: toIso(row.updated_at),
});
