import type { AuthContext } from '../auth/auth-context.js';
import type { SqlValue } from '../data/database.js';
import { RecordNotFound } from '../http/api-exception.js';
import { assertIfMatch } from '../http/conditional.js';
import { Page } from '../http/page.js';
import { containsCondition } from '../data/contains.js';
import { pageRequest, type Condition } from '../data/keyset.js';
import type { ListQueryDto } from './list-query.dto.js';
import type { ResourceDefinition } from './resource-definition.js';
import { quote } from '../data/table-gateway.js';
import type { Tables, TenantTx } from '../data/tables.js';
import type { TenantOwnedEntity } from '../data/tenant-owned.entity.js';

/** A list request: the conventions' paging, `?q=`, and exact filters named as the resource's columns. */
export type ListQuery<E> = ListQueryDto & { q?: string } & { [K in keyof E]?: E[K] | null };

/**
 * Get, keyset list, create, update and delete of one tenant-owned resource, every statement
 * through the tenant-scoped tables; each write is one transaction that also writes the activity
 * log. Each resource's service is a subclass that passes its ResourceDefinition.
 */
export class ResourceService<E extends TenantOwnedEntity, Dto extends object, R> {
  constructor(
    protected readonly tables: Tables,
    readonly definition: ResourceDefinition<E, Dto, R>,
  ) {}

  async list(auth: AuthContext, query: ListQuery<E>, parentId?: number): Promise<Page<R>> {
    const { definition } = this;
    const tx = this.tables.within(auth);
    const table = tx.table(definition.entity);
    const conditions: Condition[] = [];
    if (definition.parent && parentId !== undefined) {
      await this.findParent(tx, parentId);
      conditions.push({ sql: `${quote(table.spec.table)}.${quote(definition.parent.column)} = ?`, params: [parentId] });
    }
    if (definition.filters?.q && query.q) {
      conditions.push(
        containsCondition(
          definition.filters.q.map((c) => `${quote(table.spec.table)}.${quote(c)}`),
          query.q,
          table.dialect,
        ),
      );
    }
    for (const column of definition.filters?.exact ?? []) {
      const value = query[column];
      if (value !== undefined) {
        conditions.push({ sql: `${quote(table.spec.table)}.${quote(column)} = ?`, params: [value as SqlValue] });
      }
    }
    const filtered = conditions.length > (definition.parent && parentId !== undefined ? 1 : 0);
    const { rows, meta } = await table.page(pageRequest(query, definition.sorts), conditions, filtered);
    return new Page(await this.respond(tx, rows), meta);
  }

  async get(auth: AuthContext, id: number): Promise<R> {
    const tx = this.tables.within(auth);
    return (await this.respond(tx, [await this.find(tx, id)]))[0];
  }

  async create(auth: AuthContext, dto: Dto, parentId?: number): Promise<R> {
    const { definition } = this;
    return this.tables.db.transaction(async (sql) => {
      const tx = this.tables.within(auth, sql);
      if (definition.parent && parentId !== undefined)
        await this.findParent(tx, parentId, definition.parent.serializeOn);
      const context = { tx, parentId };
      await definition.validate?.(dto, context);
      const values = definition.toColumns(dto);
      if (definition.parent && parentId !== undefined) Object.assign(values, { [definition.parent.column]: parentId });
      const inserted = await tx.table(definition.entity).insert(values);
      await definition.afterWrite?.(inserted, dto, context);
      await definition.onChange?.(inserted, tx);
      const [answer] = await this.respond(tx, [inserted]);
      // With an Idempotency-Key, the answer is stored in the write's own transaction: both or neither.
      await auth.idempotency?.complete(sql, answer);
      return answer;
    });
  }

  async update(auth: AuthContext, id: number, dto: Dto): Promise<R> {
    const { definition } = this;
    const row = await this.tables.db.transaction(async (sql) => {
      const tx = this.tables.within(auth, sql);
      // With If-Match, the row is locked first so that of two racing writers only one matches.
      const existing = await this.find(tx, id, auth.ifMatch !== undefined);
      if (auth.ifMatch !== undefined) assertIfMatch(auth.ifMatch, (await this.respond(tx, [existing]))[0]);
      const parentId = definition.parent ? Number(existing[definition.parent.column]) : undefined;
      if (definition.parent?.serializeOn && parentId !== undefined) {
        await this.findParent(tx, parentId, definition.parent.serializeOn);
      }
      const context = { tx, existing, parentId };
      await definition.validate?.(dto, context);
      const updated = await tx.table(definition.entity).update(existing, definition.toColumns(dto, existing));
      if (!updated) throw new RecordNotFound(definition.label);
      await definition.afterWrite?.(updated, dto, context);
      await definition.onChange?.(updated, tx);
      return updated;
    });
    return (await this.respond(this.tables.within(auth), [row]))[0];
  }

  async delete(auth: AuthContext, id: number): Promise<null> {
    await this.tables.db.transaction(async (sql) => {
      const tx = this.tables.within(auth, sql);
      // Locked: of two racing deletes, the second waits here and then finds nothing (404).
      const existing = await this.find(tx, id, true);
      if (auth.ifMatch !== undefined) assertIfMatch(auth.ifMatch, (await this.respond(tx, [existing]))[0]);
      await this.definition.beforeDelete?.(existing, tx);
      if (!(await tx.table(this.definition.entity).remove(existing))) throw new RecordNotFound(this.definition.label);
      await this.definition.onChange?.(existing, tx);
    });
    return null;
  }

  async find(tx: TenantTx, id: number, lock = false): Promise<E> {
    const row = await tx.table(this.definition.entity).findById(id, { lock });
    if (!row) throw new RecordNotFound(this.definition.label);
    return row;
  }

  /** The answers for rows read through the tenant scope (mapper, then related data in one query). */
  async respond(tx: TenantTx, rows: E[]): Promise<R[]> {
    const responses = rows.map((row) => this.definition.toResponse(row));
    await this.definition.decorate?.(rows, responses, tx);
    return responses;
  }

  /** The parent in the caller's tenant (404 otherwise); with `serializeOn`, claimed for this write. */
  private async findParent(tx: TenantTx, parentId: number, serializeOn?: string): Promise<void> {
    const parent = this.definition.parent!;
    const parents = tx.table(parent.entity);
    const found = serializeOn ? await parents.claim(parentId, serializeOn) : Boolean(await parents.findById(parentId));
    if (!found) throw new RecordNotFound(parent.label);
  }
}
