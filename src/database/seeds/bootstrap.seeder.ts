import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { wholeSecondNow } from '../../common/persistence/columns.js';
import { PasswordHasher } from '../../common/auth/password-hasher.js';
import { ALL_PERMISSIONS, GUARD_NAME, ROLE_PERMISSIONS } from '../../common/auth/permissions.js';
import { SUPER_ADMIN, USER_MODEL_TYPE } from '../../common/auth/auth-user.js';
import { APP_CONFIG, type AppConfig } from '../../common/config/app-config.js';
import { Permission } from '../../modules/auth/entities/permission.entity.js';
import { Role } from '../../modules/auth/entities/role.entity.js';
import { Tenant } from '../../modules/auth/entities/tenant.entity.js';
import { User } from '../../modules/auth/entities/user.entity.js';
import { withStartupLock } from '../startup-lock.js';
import { sortKeyOf } from '../../common/persistence/sort-key.js';

export const DEFAULT_TENANT_NAME = 'Default';

const timestamps = () => {
  const now = wholeSecondNow();
  return { created_at: now, updated_at: now };
};

/**
 * Start-up seeding (API-CONVENTIONS §1): roles and permissions are brought up to date on every
 * start; the default tenant and the first super-admin are created only when no user exists.
 */
@Injectable()
export class BootstrapSeeder implements OnApplicationBootstrap {
  private readonly logger = new Logger(BootstrapSeeder.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly hasher: PasswordHasher,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // Under the start-up lock: instances starting together seed one after the other, and the
    // later ones find everything there.
    await withStartupLock(this.dataSource, () =>
      this.dataSource.transaction(async (manager) => {
        await this.seedRolesAndPermissions(manager);
        if ((await manager.count(User)) === 0) await this.seedFirstSuperAdmin(manager);
      }),
    );
  }

  private async seedRolesAndPermissions(manager: EntityManager): Promise<void> {
    const existing = await manager.find(Permission, { where: { guard_name: GUARD_NAME } });
    const missing = ALL_PERMISSIONS.filter((name) => !existing.some((p) => p.name === name));
    if (missing.length) {
      await manager.save(
        missing.map((name) =>
          manager.create(Permission, { name, name_key: sortKeyOf(name), guard_name: GUARD_NAME, ...timestamps() }),
        ),
      );
    }
    const permissions = await manager.find(Permission, { where: { guard_name: GUARD_NAME } });
    const byName = new Map(permissions.map((p) => [p.name, p]));

    const roles = await manager.find(Role, { where: { guard_name: GUARD_NAME }, relations: { permissions: true } });
    let rolesChanged = false;
    for (const [roleName, permissionNames] of Object.entries(ROLE_PERMISSIONS)) {
      const role =
        roles.find((r) => r.name === roleName) ??
        manager.create(Role, {
          name: roleName,
          name_key: sortKeyOf(roleName),
          guard_name: GUARD_NAME,
          permissions: [],
          ...timestamps(),
        });
      const held = new Set(role.permissions.map((p) => p.name));
      if (role.id && permissionNames.every((name) => held.has(name))) continue;
      rolesChanged ||= Boolean(role.id);
      role.permissions = [
        ...role.permissions,
        ...permissionNames.filter((n) => !held.has(n)).map((n) => byName.get(n)!),
      ];
      await manager.save(role);
    }
    // Permissions cached under a user's access version must not outlive a change of their roles' permissions.
    if (rolesChanged) await manager.query('UPDATE users SET access_version = access_version + 1');
  }

  private async seedFirstSuperAdmin(manager: EntityManager): Promise<void> {
    const tenant =
      (await manager.findOne(Tenant, { where: { name: DEFAULT_TENANT_NAME } })) ??
      (await manager.save(
        manager.create(Tenant, {
          name: DEFAULT_TENANT_NAME,
          name_key: sortKeyOf(DEFAULT_TENANT_NAME),
          description: 'Created at first start',
          is_active: true,
          ...timestamps(),
        }),
      ));
    const generated = !this.config.adminPassword;
    const password = this.config.adminPassword ?? randomBytes(12).toString('base64url');
    const user = await manager.save(
      manager.create(User, {
        tenant_id: tenant.id,
        name: 'Super Admin',
        name_key: sortKeyOf('Super Admin'),
        email: this.config.adminEmail,
        password: await this.hasher.hash(password),
        is_active: true,
        ...timestamps(),
      }),
    );
    const role = await manager.findOneByOrFail(Role, { name: SUPER_ADMIN, guard_name: GUARD_NAME });
    await manager.insert('model_has_roles', { role_id: role.id, model_type: USER_MODEL_TYPE, model_id: user.id });
    if (generated) {
      // Printed once: the password is stored only as a hash.
      console.log(`First super-admin created: ${this.config.adminEmail} / ${password} (change it after signing in)`);
    } else {
      this.logger.log(`First super-admin created: ${this.config.adminEmail}`);
    }
  }
}
