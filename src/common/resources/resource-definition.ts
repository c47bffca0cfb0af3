import type { Type } from '@nestjs/common';
import type { SortFields } from '../data/keyset.js';
import type { Values } from '../data/table-gateway.js';
import type { TenantTx } from '../data/tables.js';
import type { TenantOwnedEntity } from '../data/tenant-owned.entity.js';

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
  /** The record being updated; undefined on create. */
  existing?: E;
  /** The parent id on create (from the path), or the record's own parent on update. */
  parentId?: number;
}

/**
 * Everything that differs between two tenant-owned resources. ResourceService does the rest:
 * tenant scope, 404s, keyset lists, one transaction per write, the activity log, the answer.
 */
export interface ResourceDefinition<E extends TenantOwnedEntity, Dto extends object, R> {
  entity: Type<E>;
  /** Human name for messages: "marketing program". */
  label: string;
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
  /** Rules that need the database (references, sums); throws ValidationFailed. */
  validate?(dto: Dto, context: WriteContext<E>): Promise<void>;
  /** Work after the row is written, in the same transaction (child rows). */
  afterWrite?(row: E, dto: Dto, context: WriteContext<E>): Promise<void>;
  /** Refuses (DeleteConflict) or cascades before the row is removed, in the same transaction. */
  beforeDelete?(row: E, tx: TenantTx): Promise<void>;
  /** After every create, update and delete of a row, in the same transaction (versions others cache under). */
  onChange?(row: E, tx: TenantTx): Promise<void>;
  /** Adds related data to the answers of a page (one query per page, never one per row). */
  decorate?(rows: E[], responses: R[], tx: TenantTx): Promise<void>;
}
