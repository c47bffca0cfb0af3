import type { Type } from '@nestjs/common';
import type { Sql } from '../persistence/database.js';
import type { SortFields } from '../persistence/keyset.js';
import type { Values } from '../persistence/table-gateway.js';
import type { TenantReads, TenantTx } from '../persistence/tables.js';
import type { TenantOwnedEntity } from '../persistence/tenant-owned.entity.js';

/** The record a child resource lives in (`campaign_id` of a treatment group). */
export interface ParentDefinition<E> {
  entity: Type<TenantOwnedEntity>;
  /** Column of the child naming the parent. */
  column: keyof E & string;
  label: string;
  /**
   * For a rule over the siblings (a campaign's treatment groups add up to at most 100 %): each
   * write first increments this counter column of the parent row. That serializes the writers on
   * one server (the row lock, held to the end of the transaction) and across the nodes of a Galera
   * cluster (two transactions that wrote one row cannot both pass certification; the loser is run
   * again from its start and sees the winner's rows). A `SELECT ... FOR UPDATE` would hold on one
   * node only.
   */
  serializeOn?: string;
}

export interface WriteContext<E> {
  /** Tenant-scoped tables, inside the write's transaction. */
  tx: TenantTx;
  /** The same transaction, for bookkeeping rows only (a webhook's deliveries and their jobs): see Tables.writeWithBookkeeping. */
  bookkeeping: Sql;
  /** The record being updated; undefined on create. */
  existing?: E;
  /** The parent id on create (from the path), or the record's own parent on update. */
  parentId?: number;
}

/**
 * Everything that differs between two tenant-owned resources. ResourceService does the rest:
 * tenant scope, 404s, keyset lists, one transaction per write, the recorded changes, the answer.
 *
 * The hooks run in this order (ResourceService.create / update / delete):
 * - create: parent found (or claimed) → validate → insert → afterWrite → onChange → answer (decorate)
 * - update: row found (locked with If-Match) → parent claimed (serializeOn) → validate → update →
 *   afterWrite → onChange → answer (decorate)
 * - delete: row found and locked → beforeDelete → remove → onChange
 * Every write hook gets the write's TenantTx: its tables write inside the same transaction, and it
 * offers no connection to write around them.
 */
export interface ResourceDefinition<E extends TenantOwnedEntity, Dto extends object, R> {
  entity: Type<E>;
  /** Human name for messages: "marketing program". */
  label: string;
  /** Its name in the change feed: snake_case, singular (`marketing_program` → `marketing_program.created`). */
  resource: string;
  parent?: ParentDefinition<E>;
  sorts: SortFields;
  filters?: {
    /** `?q=`: substring of any of these columns. */
    q?: (keyof E & string)[];
    /** `?column=`: exact match on the column of the same name. */
    exact?: (keyof E & string)[];
  };
  /** The columns a validated body writes (optional fields left out keep their value on update). */
  toColumns(dto: Dto, existing?: E): Values<E>;
  /** The answer for one row: names every field the API publishes, nothing else. */
  toResponse(row: E): R;
  /** The answer of a create, where it shows more than the record's GET does (a webhook's secret, once). */
  createdAnswer?(row: E, answer: R): R;
  /** Before the write: rules that need the database (references, sums). Throws ValidationFailed; writes nothing. */
  validate?(dto: Dto, context: WriteContext<E>): Promise<void>;
  /**
   * After the row is inserted or updated, in the same transaction: the record's parts that live in
   * other rows (an audience's rules). A change of those parts alone is recorded with updateParts.
   */
  afterWrite?(row: E, dto: Dto, context: WriteContext<E>): Promise<void>;
  /** Before the row is removed, in the same transaction: refuses (DeleteConflict) or removes what lives inside it. */
  beforeDelete?(row: E, tx: TenantTx): Promise<void>;
  /**
   * Last, after every create, update and delete of a row, in the same transaction: bookkeeping
   * others depend on (the version counters that cached copies are kept under).
   */
  onChange?(row: E, tx: TenantTx): Promise<void>;
  /** Adds related data to the answers of a page (one query per page, never one per row); reads only. */
  decorate?(rows: E[], responses: R[], reads: TenantReads): Promise<void>;
}
