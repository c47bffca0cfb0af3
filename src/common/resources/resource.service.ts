import type { AuthContext } from '../auth/auth-context.js';
import { containsCondition } from '../persistence/contains.js';
import type { SqlValue } from '../persistence/database.js';
import { pageRequest, type Condition } from '../persistence/keyset.js';
import { quote, type RowLock } from '../persistence/table-gateway.js';
import type { Tables, TenantReads, TenantTx } from '../persistence/tables.js';
import type { TenantOwnedEntity } from '../persistence/tenant-owned.entity.js';
import { RecordNotFound } from '../http/api-exception.js';
import { assertIfMatch } from '../http/conditional.js';
import { Page } from '../http/page.js';
import type { ListQueryDto } from './list-query.dto.js';
import type { ResourceDefinition } from './resource-definition.js';

/** A list request: the conventions' paging, `?q=`, and exact filters named as the resource's columns. */
export type ListQuery<E> = ListQueryDto & { q?: string } & { [K in keyof E]?: E[K] | null };

/**
 * Get, keyset list, create, update and delete of one tenant-owned resource. Each write is one
 * Tables.write: one transaction with the tenant's tables, whose changes are recorded (activity log,
 * change feed) in it. The three write methods run the definition's hooks in the order they read,
 * top to bottom; each hook's contract is on its declaration (ResourceDefinition).
 */
export class ResourceService<E extends TenantOwnedEntity, Dto extends object, R> {
  constructor(
    protected readonly tables: Tables,
    readonly definition: ResourceDefinition<E, Dto, R>,
  ) {
    tables.publish(definition.entity, {
      resource: definition.resource,
      present: (reads, rows) => this.respond(reads, rows),
    });
  }

  async list(auth: AuthContext, query: ListQuery<E>, parentId?: number): Promise<Page<R>> {
    const { definition } = this;
    const reads = this.tables.read(auth);
    const table = reads.table(definition.entity);
    const t = quote(table.spec.table);
    const conditions: Condition[] = [];
    if (definition.parent && parentId !== undefined) {
      await this.findParent(reads, parentId);
      conditions.push({ sql: `${t}.${quote(definition.parent.column)} = ?`, params: [parentId] });
    }
    if (definition.filters?.q && query.q) {
      conditions.push(
        containsCondition(
          definition.filters.q.map((c) => `${t}.${quote(c)}`),
          query.q,
          reads.dialect,
        ),
      );
    }
    for (const column of definition.filters?.exact ?? []) {
      const value = query[column];
      if (value !== undefined) conditions.push({ sql: `${t}.${quote(column)} = ?`, params: [value as SqlValue] });
    }
    const filtered = conditions.length > (definition.parent && parentId !== undefined ? 1 : 0);
    const { rows, meta } = await table.page(pageRequest(query, definition.sorts), conditions, filtered);
    return new Page(await this.respond(reads, rows), meta);
  }

  async get(auth: AuthContext, id: number): Promise<R> {
    const reads = this.tables.read(auth);
    const [answer] = await this.respond(reads, [await this.find(reads, id)]);
    return answer;
  }

  /** POST: parent → validate → insert → afterWrite → onChange → the answer, kept with the Idempotency-Key. */
  create(auth: AuthContext, dto: Dto, parentId?: number): Promise<R> {
    const { definition: d } = this;
    return this.tables.writeWithBookkeeping(auth, async (tx, bookkeeping) => {
      if (d.parent && parentId !== undefined) await this.findParent(tx, parentId, d.parent.serializeOn, 'share');
      const context = { tx, bookkeeping, parentId };
      await d.validate?.(dto, context);
      const values = d.toColumns(dto);
      if (d.parent && parentId !== undefined) Object.assign(values, { [d.parent.column]: parentId });
      const row = await tx.table(d.entity).insert(values);
      await d.afterWrite?.(row, dto, context);
      await d.onChange?.(row, tx);
      const [record] = await this.respond(tx, [row]);
      const answer = d.createdAnswer ? d.createdAnswer(row, record) : record;
      await tx.keepAnswer(answer);
      return answer;
    });
  }

  /** PUT: the row (locked and matched against If-Match) → parent → validate → update → afterWrite → onChange → the answer. */
  update(auth: AuthContext, id: number, dto: Dto): Promise<R> {
    const { definition: d } = this;
    return this.tables.writeWithBookkeeping(auth, async (tx, bookkeeping) => {
      // Locked: a write racing this one on the record ends first, so that the answer and the change
      // feed's event show the record as stored (read unlocked, its other fields could be stale).
      const existing = await this.findMatching(tx, id);
      const parentId = d.parent ? Number(existing[d.parent.column]) : undefined;
      if (d.parent?.serializeOn && parentId !== undefined) await this.findParent(tx, parentId, d.parent.serializeOn);
      const context = { tx, bookkeeping, existing, parentId };
      await d.validate?.(dto, context);
      const row = await tx.table(d.entity).update(existing, d.toColumns(dto, existing));
      if (!row) throw new RecordNotFound(d.label);
      await d.afterWrite?.(row, dto, context);
      await d.onChange?.(row, tx);
      const [answer] = await this.respond(tx, [row]);
      return answer;
    });
  }

  /** DELETE: the row (locked and matched against If-Match) → beforeDelete → remove → onChange. */
  delete(auth: AuthContext, id: number): Promise<null> {
    const { definition: d } = this;
    return this.tables.write(auth, async (tx) => {
      // Locked: of two racing deletes, the second waits here and then finds nothing (404).
      const existing = await this.findMatching(tx, id);
      await d.beforeDelete?.(existing, tx);
      if (!(await tx.table(d.entity).remove(existing))) throw new RecordNotFound(d.label);
      await d.onChange?.(existing, tx);
      return null;
    });
  }

  async find(reads: TenantReads, id: number, lock = false): Promise<E> {
    const row = await reads.table(this.definition.entity).findById(id, { lock });
    if (!row) throw new RecordNotFound(this.definition.label);
    return row;
  }

  /** The answers for rows read through the tenant scope (mapper, then related data in one query). */
  async respond(reads: TenantReads, rows: E[]): Promise<R[]> {
    const responses = rows.map((row) => this.definition.toResponse(row));
    await this.definition.decorate?.(rows, responses, reads);
    return responses;
  }

  /**
   * The row to change, locked (of two racing writers the second reads what the first stored) and
   * checked against If-Match.
   */
  private async findMatching(tx: TenantTx, id: number): Promise<E> {
    const existing = await this.find(tx, id, true);
    if (tx.auth.ifMatch !== undefined) assertIfMatch(tx.auth.ifMatch, (await this.respond(tx, [existing]))[0]);
    return existing;
  }

  /**
   * The parent in the caller's tenant (404 otherwise); with `serializeOn`, claimed for this write;
   * with `lock`, share-locked (a create: the parent's deletion waits for it, then sees the child).
   */
  private async findParent(
    reads: TenantReads | TenantTx,
    parentId: number,
    serializeOn?: string,
    lock?: RowLock,
  ): Promise<void> {
    const parent = this.definition.parent!;
    const found = serializeOn
      ? await (reads as TenantTx).table(parent.entity).claim(parentId, serializeOn)
      : Boolean(await reads.table(parent.entity).findById(parentId, { lock }));
    if (!found) throw new RecordNotFound(parent.label);
  }
}
