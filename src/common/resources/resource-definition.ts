import type { EntityManager } from 'typeorm';
import type { Type } from '@nestjs/common';
import type { SortFields } from './keyset-paginator.js';
import type { TenantOwnedEntity } from './tenant-owned.entity.js';
import type { TenantScopedRepository } from './tenant-scoped.repository.js';

/** Filters of API-CONVENTIONS §4 a list may declare; each maps a query parameter to columns. */
export interface FilterDefinition {
  /** `?q=`: substring of any of these columns. */
  q?: string[];
  /** `?param=`: exact match on the column of the same name (status, is_active, email, external_id, ...). */
  exact?: string[];
}

export interface ParentDefinition {
  entity: Type<TenantOwnedEntity>;
  /** Column of the child naming the parent, e.g. `campaign_id`. */
  column: string;
  label: string;
}

export interface WriteContext<E extends TenantOwnedEntity> {
  manager: EntityManager;
  /** The resource's own tenant-scoped repository (uniqueness checks and the like). */
  repo: TenantScopedRepository<E>;
  /** The record being updated; undefined on create. */
  existing?: E;
  /** The parent id on create (from the path), or the record's own parent on update. */
  parentId?: number;
}

/**
 * Everything that differs between two tenant-owned resources. The generic service and
 * controller do the rest (tenant scope, 404s, keyset lists, transactions, envelope).
 */
export interface ResourceDefinition<E extends TenantOwnedEntity, R = unknown, Dto extends object = object> {
  entity: Type<E>;
  /** Human name for messages: "marketing program". */
  label: string;
  parent?: ParentDefinition;
  sorts: SortFields;
  filters?: FilterDefinition;
  /** Entity values from a validated request body (dates parsed, optional fields defaulted on create). */
  toColumns(dto: Dto, existing?: E): Partial<E>;
  /** Rules that need the database (references, sums); throws ValidationFailed. Runs in the write transaction. */
  validate?(dto: Dto, context: WriteContext<E>): Promise<void>;
  /** Work after the record is saved, in the same transaction (child rows). */
  afterWrite?(record: E, dto: Dto, context: WriteContext<E>): Promise<void>;
  /** Refuses (DeleteConflict) or cascades before the record is removed, in the same transaction. */
  beforeDelete?(record: E, manager: EntityManager): Promise<void>;
  /** Adds related data to a page of records (one query per page, never per row). */
  decorate?(records: E[], responses: R[], manager: EntityManager): Promise<void>;
}
