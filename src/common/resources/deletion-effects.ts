import { Inject, Injectable, Optional, type Type } from '@nestjs/common';
import { ApiException } from '../http/api-exception.js';
import type { TenantOwnedEntity } from '../persistence/tenant-owned.entity.js';
import type { TenantTx } from '../persistence/tables.js';

/**
 * What the deletion of a record of one kind (`of`) does to the records of `entity` whose `column`
 * names it: `remove` them (a campaign's contents), `clear` the column (a destination link of a
 * deleted treatment group keeps going without it), or `refuse` the deletion with a 409 saying
 * `message` while one exists (a campaign whose run is going on).
 */
export type DeletionEffect = {
  of: Type<TenantOwnedEntity>;
  entity: Type<TenantOwnedEntity>;
  column: string;
} & ({ action: 'remove' | 'clear' } | { action: 'refuse'; message: string });

/** The effects, declared once where every module is known: the composition root (src/app.module.ts). */
export const DELETION_EFFECTS = Symbol('DELETION_EFFECTS');

/**
 * Applies the declared deletion effects in the deleting write, in the order declared, through the
 * tables, so that every removed or cleared record is logged and in the change feed (not left to
 * ON DELETE CASCADE / SET NULL). A service calls it from its beforeDelete hook.
 */
@Injectable()
export class DeletionEffects {
  constructor(@Optional() @Inject(DELETION_EFFECTS) private readonly effects: readonly DeletionEffect[] = []) {}

  async apply<E extends TenantOwnedEntity>(of: Type<E>, record: E, tx: TenantTx): Promise<void> {
    for (const effect of this.effects) {
      if (effect.of !== of) continue;
      const table = tx.table(effect.entity);
      const rows = await table.findWhere({ [effect.column]: record.id });
      if (effect.action === 'refuse') {
        if (rows.length) throw new ApiException(409, { message: effect.message });
      } else if (effect.action === 'remove') for (const row of rows) await table.remove(row);
      else await table.updateMany(rows.map((row) => ({ existing: row, values: { [effect.column]: null } })));
    }
  }
}
