import type { Type } from '@nestjs/common';
import type { AuthContext } from '../auth/auth-context.js';
import { uniqueViolationField } from '../persistence/database-errors.js';
import { toDate } from '../http/serialize.js';
import { RecordNotFound, ValidationFailed } from '../http/api-exception.js';
import { assertIfMatch } from '../http/conditional.js';
import { Page } from '../http/page.js';
import { containsCondition } from '../persistence/contains.js';
import {
  keysetCondition,
  keysetOrder,
  pageOf,
  pageRequest,
  type Condition,
  type SortFields,
} from '../persistence/keyset.js';
import type { ListQueryDto } from './list-query.dto.js';
import { matching, quote, type RowLock, type Values } from '../persistence/table-gateway.js';
import type { Tables, TenantReads, TenantTx } from '../persistence/tables.js';
import type { TenantOwnedEntity } from '../persistence/tenant-owned.entity.js';

/** What an association needs of its target resource: its table and its answers. */
export interface AssociationTarget<T extends TenantOwnedEntity, TR> {
  readonly definition: { entity: Type<T>; label: string };
  respond(reads: TenantReads, rows: T[]): Promise<TR[]>;
}

/** Sorts of every association list: the item's id and creation, and the target's name. */
export const ASSOCIATION_SORTS: SortFields = { name: 'string', created_at: 'date' };

/** A link between a campaign (the owner) and another record (the target), with fields of its own. */
export interface AssociationDefinition<
  L extends TenantOwnedEntity,
  T extends TenantOwnedEntity,
  Dto extends object,
  R,
  TR,
> {
  entity: Type<L>;
  /** Its name in the change feed (`campaign_audience`); each event's data is the link as its list shows it. */
  resource: string;
  /** Whether a link can change after it is made (a destination link loses a deleted treatment group): `.updated` events. */
  updatable?: boolean;
  owner: { entity: Type<TenantOwnedEntity>; column: keyof L & string; label: string };
  /** The column naming the target, and the target's resource (its tenant scope, its answers). */
  target: { column: keyof L & string; label: string; resource: AssociationTarget<T, TR> };
  /**
   * What a list item is, and so what its `id` and `created_at` are: the target record with the
   * link's fields (campaign audiences), or the link with the target inside (campaign destinations).
   */
  item: 'target' | 'link';
  /** The same target may be linked once per owner (a second link is a 422 on the target column). */
  unique: boolean;
  targetId(dto: Dto): number;
  toColumns(dto: Dto): Values<L>;
  validate?(dto: Dto, context: { tx: TenantTx; ownerId: number }): Promise<void>;
  /** One item of the answer, from the link and its target's answer. */
  present(link: L, target: TR): R;
  /** After a link is created or removed, in the same transaction (versions others cache under). */
  onChange?(link: L, tx: TenantTx): Promise<void>;
}

/** List (`?q=` on the target's name, sorts by id, name, created_at), create and remove the links of one owner. */
export class AssociationService<L extends TenantOwnedEntity, T extends TenantOwnedEntity, Dto extends object, R, TR> {
  constructor(
    private readonly tables: Tables,
    readonly definition: AssociationDefinition<L, T, Dto, R, TR>,
  ) {
    const { owner, target } = definition;
    tables.publish(definition.entity, {
      resource: definition.resource,
      // An item that is the target record (a campaign audience) has the target's id: the event names the campaign too.
      present: async (reads, links) => {
        const items = await this.respond(reads, links);
        if (definition.item === 'link') return items;
        return items.map((item, i) => Object.assign({ [owner.column]: links[i][owner.column] }, item));
      },
      // A link's tombstone names its two ends.
      identify: (link) => ({ [owner.column]: link[owner.column], [target.column]: link[target.column] }),
      actions: definition.updatable ? ['created', 'updated', 'deleted'] : ['created', 'deleted'],
    });
  }

  async list(auth: AuthContext, ownerId: number, query: ListQueryDto & { q?: string }): Promise<Page<R>> {
    const tx = this.tables.read(auth);
    await this.findOwner(tx, ownerId);
    const { definition } = this;
    const request = pageRequest(query, ASSOCIATION_SORTS);
    const links = tx.table(definition.entity);
    const targets = tx.table(definition.target.resource.definition.entity);
    const [l, t] = [quote(links.spec.table), quote(targets.spec.table)];
    const itemAlias = definition.item === 'target' ? t : l;
    const sortColumn =
      request.sort.field === 'name'
        ? `${t}.${quote(targets.spec.sortColumn('name'))}`
        : `${itemAlias}.${quote(request.sort.field)}`;
    const idColumn = `${itemAlias}.id`;
    const where: Condition[] = [
      links.scope(l),
      targets.scope(t),
      { sql: `${l}.${quote(definition.owner.column)} = ?`, params: [ownerId] },
    ];
    if (query.q) where.push(containsCondition([`${t}.name`], query.q, tx.dialect));
    const total = request.withTotal ? await this.count(tx, where) : undefined;
    if (request.after) where.push(keysetCondition(sortColumn, idColumn, request.sort, request.after));
    const rows = await tx.select<Record<string, unknown>>(
      `SELECT ${links.spec.selectList(l)}, ${sortColumn} AS sort_value, ${idColumn} AS item_id
         FROM ${l} JOIN ${t} ON ${t}.id = ${l}.${quote(definition.target.column)}
        WHERE ${where.map((c) => c.sql).join(' AND ')}
        ORDER BY ${keysetOrder(sortColumn, idColumn, request.sort)} LIMIT ${request.limit + 1}`,
      where.flatMap((c) => c.params),
    );
    const page = pageOf(rows, request, total, (row) => ({
      value: request.sort.type === 'date' ? toDate(row.sort_value as string | Date) : row.sort_value,
      id: Number(row.item_id),
    }));
    const answers = await this.respond(
      tx,
      page.rows.map((row) => links.spec.normalize(row)),
    );
    return new Page(answers, page.meta);
  }

  /** POST: owner → target → not linked yet → validate → insert → onChange → the answer, kept with the Idempotency-Key. */
  create(auth: AuthContext, ownerId: number, dto: Dto): Promise<R> {
    const { definition } = this;
    return this.tables.write(auth, async (tx) => {
      // Both ends share-locked (a deletion of either waits for this link, then removes it or
      // refuses); two racing links are decided by the unique index of (campaign, target).
      await this.findOwner(tx, ownerId, 'share');
      const targetId = definition.targetId(dto);
      const field = definition.target.column;
      await tx.reference(definition.target.resource.definition.entity, targetId, field);
      const links = tx.table(definition.entity);
      const alreadyLinked = () =>
        ValidationFailed.field(
          field,
          `The ${definition.target.label} is already associated with this ${definition.owner.label}.`,
        );
      if (
        definition.unique &&
        (await links.exists(matching<L>([definition.owner.column, ownerId], [field, targetId])))
      ) {
        throw alreadyLinked();
      }
      await definition.validate?.(dto, { tx, ownerId });
      let link: L;
      try {
        link = await links.insert(
          Object.assign(definition.toColumns(dto), { [definition.owner.column]: ownerId, [field]: targetId }),
        );
      } catch (error) {
        // Two links racing past the check above: the unique index decides, with the same answer.
        if (definition.unique && uniqueViolationField(error) !== undefined) throw alreadyLinked();
        throw error;
      }
      await definition.onChange?.(link, tx);
      const [answer] = await this.respond(tx, [link]);
      await tx.keepAnswer(answer);
      return answer;
    });
  }

  /** DELETE /owners/{id}/targets/{target_id}: removes the owner's link to that (live) target. */
  removeByTarget(auth: AuthContext, ownerId: number, targetId: number): Promise<null> {
    const { definition } = this;
    return this.tables.write(auth, async (tx) => {
      await this.findOwner(tx, ownerId);
      const notFound = () => new RecordNotFound(`${definition.target.label} of this ${definition.owner.label}`);
      // A soft-deleted target's links are gone for every read, so for removal too.
      if (!(await tx.table(definition.target.resource.definition.entity).findById(targetId))) throw notFound();
      const links = tx.table(definition.entity);
      const [link] = await links.findWhere(
        matching<L>([definition.owner.column, ownerId], [definition.target.column, targetId]),
      );
      if (link && auth.ifMatch !== undefined) assertIfMatch(auth.ifMatch, (await this.respond(tx, [link]))[0]);
      if (!link || !(await links.remove(link))) throw notFound();
      await definition.onChange?.(link, tx);
      return null;
    });
  }

  /** DELETE /links/{id}: removes a link by its own key. */
  removeById(auth: AuthContext, id: number): Promise<null> {
    return this.tables.write(auth, async (tx) => {
      const links = tx.table(this.definition.entity);
      const link = await links.findById(id, { lock: true });
      if (link && auth.ifMatch !== undefined) assertIfMatch(auth.ifMatch, (await this.respond(tx, [link]))[0]);
      if (!link || !(await links.remove(link))) {
        throw new RecordNotFound(`${this.definition.target.label} association`);
      }
      await this.definition.onChange?.(link, tx);
      return null;
    });
  }

  /** Each link with its target's answer; one query for the targets of a whole page. */
  private async respond(tx: TenantReads, links: L[]): Promise<R[]> {
    const { target, present } = this.definition;
    const ids = links.map((link) => Number(link[target.column]));
    const rows = await tx.table(target.resource.definition.entity).findMany(ids);
    const answers = await target.resource.respond(tx, rows);
    const byId = new Map(rows.map((row, index) => [Number(row.id), answers[index]]));
    return links.map((link, index) => present(link, byId.get(ids[index])!));
  }

  private async count(tx: TenantReads, where: Condition[]): Promise<number> {
    const { definition } = this;
    const l = quote(tx.table(definition.entity).spec.table);
    const t = quote(tx.table(definition.target.resource.definition.entity).spec.table);
    const [row] = await tx.select<{ n: number | string }>(
      `SELECT COUNT(*) AS n FROM ${l} JOIN ${t} ON ${t}.id = ${l}.${quote(definition.target.column)}
        WHERE ${where.map((c) => c.sql).join(' AND ')}`,
      where.flatMap((c) => c.params),
    );
    return Number(row?.n ?? 0);
  }

  private async findOwner(tx: TenantReads, ownerId: number, lock?: RowLock): Promise<void> {
    if (!(await tx.table(this.definition.owner.entity).findById(ownerId, { lock }))) {
      throw new RecordNotFound(this.definition.owner.label);
    }
  }
}
