import { Injectable, type Type } from '@nestjs/common';
import type { TenantReads } from '../persistence/tenant-reads.js';

/** How a kind of record appears in the change feed: its resource name and its answer. */
export interface RecordKind<E = never> {
  /** snake_case, singular: `campaign`, `treatment_group`, `campaign_audience`. */
  resource: string;
  /** The answers for rows of this kind, as its GET (an association: its list) answers them. */
  present(reads: TenantReads, rows: E[]): Promise<unknown[]>;
  /** Fields a tombstone adds to `{id, deleted_at}` (a link's two ends). */
  identify?(row: E): Record<string, unknown>;
  /** What can happen to such a record (a link is created and deleted, never updated by a route); default all three. */
  actions?: readonly ChangeAction[];
}

export type ChangeAction = (typeof CHANGE_ACTIONS)[number];

/** An event type that is not a record's created/updated/deleted (`webhook.test`). */
export interface OtherEventType {
  type: string;
  resource: string;
  description: string;
}

export const CHANGE_ACTIONS = ['created', 'updated', 'deleted'] as const;

/**
 * Every kind of record the change feed publishes, registered once by the service that owns it
 * (ResourceService and AssociationService register their resource; users and tenants theirs): a
 * table whose entity is not registered here has no events (bookkeeping rows).
 */
@Injectable()
export class EventCatalog {
  private readonly kinds = new Map<string, RecordKind<unknown>>();
  private readonly others = new Map<string, OtherEventType>();

  register<E>(entity: Type<E>, kind: RecordKind<E>): void {
    const known = this.kinds.get(entity.name);
    if (known && known.resource !== kind.resource) {
      throw new Error(`${entity.name} is published as ${known.resource} already`);
    }
    this.kinds.set(entity.name, kind as RecordKind<unknown>);
  }

  registerType(type: OtherEventType): void {
    this.others.set(type.type, type);
  }

  /** The kind of the records of an entity (by its name, as the Journal records it). */
  kindOf(entityName: string): RecordKind<unknown> | undefined {
    return this.kinds.get(entityName);
  }

  /** Every event type, sorted: `<resource>.created|updated|deleted` of each kind, and the others. */
  types(): OtherEventType[] {
    const types: OtherEventType[] = [...this.others.values()];
    for (const { resource, actions } of this.kinds.values()) {
      for (const action of actions ?? CHANGE_ACTIONS) {
        types.push({
          type: `${resource}.${action}`,
          resource,
          description: `A ${resource.replace(/_/g, ' ')} was ${action}.`,
        });
      }
    }
    return types.sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
  }
}
