import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type {
  DataSource,
  EntityManager,
  EntityMetadata,
  EntitySubscriberInterface,
  InsertEvent,
  ObjectLiteral,
  RemoveEvent,
  SoftRemoveEvent,
  UpdateEvent,
} from 'typeorm';
import { ActivityLog } from '../../modules/admin/entities/activity-log.entity.js';
import { Tenant } from '../../modules/admin/entities/tenant.entity.js';
import { USER_MODEL_TYPE } from '../../modules/admin/entities/user.entity.js';
import { TenantOwnedEntity } from '../resources/tenant-owned.entity.js';
import { RequestContext } from '../tenancy/request-context.js';

/** Never written to the log, whatever the entity. */
const HIDDEN = new Set(['password', 'remember_token', 'token']);
const NOT_LOGGED = new Set<unknown>([ActivityLog]);

type Attributes = Record<string, unknown>;

/**
 * Writes one activity-log entry for every create, update and delete of a tenant or a
 * tenant-owned record, through the same entity manager (so in the same transaction) as the
 * change itself. Services do nothing for it: saving and removing through TypeORM is enough.
 */
@Injectable()
export class ActivityLogSubscriber implements EntitySubscriberInterface<ObjectLiteral> {
  constructor(
    @InjectDataSource() dataSource: DataSource,
    private readonly context: RequestContext,
  ) {
    dataSource.subscribers.push(this);
  }

  async afterInsert(event: InsertEvent<ObjectLiteral>): Promise<void> {
    if (!isLogged(event.metadata)) return;
    await this.write(
      event.manager,
      event.metadata,
      'created',
      event.entity,
      attributesOf(event.metadata, event.entity),
      null,
    );
  }

  async afterUpdate(event: UpdateEvent<ObjectLiteral>): Promise<void> {
    if (!isLogged(event.metadata) || !event.entity) return;
    const changed = event.updatedColumns
      .map((column) => column.propertyName)
      .filter((name) => !HIDDEN.has(name) && name !== 'updated_at');
    if (changed.length === 0) return;
    const attributes: Attributes = {};
    const old: Attributes = {};
    for (const name of changed) {
      const type = event.metadata.findColumnWithPropertyName(name)?.type;
      attributes[name] = plain(event.entity[name], type);
      old[name] = plain(event.databaseEntity?.[name], type);
    }
    const subject = { ...event.databaseEntity, ...event.entity };
    await this.write(event.manager, event.metadata, 'updated', subject, attributes, old);
  }

  async beforeSoftRemove(event: SoftRemoveEvent<ObjectLiteral>): Promise<void> {
    await this.beforeRemove(event);
  }

  async beforeRemove(event: RemoveEvent<ObjectLiteral> | SoftRemoveEvent<ObjectLiteral>): Promise<void> {
    if (!isLogged(event.metadata)) return;
    const subject = event.databaseEntity ?? event.entity;
    if (!subject) return;
    await this.write(event.manager, event.metadata, 'deleted', subject, {}, attributesOf(event.metadata, subject));
  }

  private async write(
    manager: EntityManager,
    metadata: EntityMetadata,
    eventName: 'created' | 'updated' | 'deleted',
    subject: ObjectLiteral,
    attributes: Attributes,
    old: Attributes | null,
  ): Promise<void> {
    const causer = this.context.user();
    const tenantId = metadata.target === Tenant ? subject.id : subject.tenant_id;
    const now = new Date(Math.floor(Date.now() / 1000) * 1000);
    await manager.insert(ActivityLog, {
      log_name: 'default',
      description: eventName,
      subject_type: metadata.name,
      subject_id: subject.id === undefined ? null : Number(subject.id),
      event: eventName,
      causer_type: causer ? USER_MODEL_TYPE : null,
      causer_id: causer?.id ?? null,
      properties: JSON.stringify(old === null ? { attributes } : { attributes, old }),
      batch_uuid: this.context.batchId() ?? null,
      tenant_id: tenantId === undefined || tenantId === null ? null : Number(tenantId),
      created_at: now,
      updated_at: now,
    } as never);
  }
}

function isLogged(metadata: EntityMetadata): boolean {
  const target = metadata.target;
  if (typeof target !== 'function' || NOT_LOGGED.has(target)) return false;
  return target === Tenant || target.prototype instanceof TenantOwnedEntity;
}

function attributesOf(metadata: EntityMetadata, entity: ObjectLiteral): Attributes {
  const attributes: Attributes = {};
  for (const column of metadata.columns) {
    if (HIDDEN.has(column.propertyName)) continue;
    attributes[column.propertyName] = plain(entity[column.propertyName], column.type);
  }
  return attributes;
}

/** As the API shows values: dates in ISO 8601, DECIMAL as numbers (the drivers hand them over as strings). */
function plain(value: unknown, type?: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (value === undefined || value === null) return null;
  if (type === 'decimal' && typeof value === 'string') return Number(value);
  return value;
}
