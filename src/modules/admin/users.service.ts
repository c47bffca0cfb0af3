import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Not, type DataSource, type EntityManager } from 'typeorm';
import type { AuthUser } from '../../common/auth/auth-user.js';
import { PasswordHasher } from '../../common/auth/password-hasher.js';
import { DeleteConflict, RecordNotFound, ValidationFailed } from '../../common/http/api-exception.js';
import type { Page } from '../../common/http/page.js';
import { paginate, resolveSort } from '../../common/resources/keyset-paginator.js';
import { whereContains } from '../../common/resources/search.js';
import {
  InjectTenantRepository,
  type TenantScopedRepository,
} from '../../common/resources/tenant-scoped.repository.js';
import { AccessTokenService } from '../auth/access-token.service.js';
import type { CreateUserDto, UpdateUserDto, UserListQueryDto } from './dto/user.dto.js';
import { toUserResponse, type UserResponse } from './dto/user.response.js';
import { User } from './entities/user.entity.js';
import { RoleAssignments } from './role-assignments.js';
import { UserAccessReader } from './user-access.reader.js';

const SORTS = { name: 'string', email: 'string', created_at: 'date' } as const;

@Injectable()
export class UsersService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @InjectTenantRepository(User) private readonly users: TenantScopedRepository<User>,
    private readonly access: UserAccessReader,
    private readonly roles: RoleAssignments,
    private readonly hasher: PasswordHasher,
    private readonly tokens: AccessTokenService,
  ) {}

  async list(query: UserListQueryDto): Promise<Page<UserResponse>> {
    const filtered = query.q !== undefined || query.is_active !== undefined;
    const qb = this.users.listQuery(resolveSort(query.sort, SORTS).field, filtered);
    if (query.q) whereContains(qb, ['name', 'email'], query.q);
    if (query.is_active !== undefined) qb.andWhere('users.is_active = :active', { active: query.is_active });
    return paginate(qb, query, SORTS, (rows) => this.withRoles(rows));
  }

  async get(id: number): Promise<UserResponse> {
    const [response] = await this.withRoles([await this.find(id)]);
    return response;
  }

  async create(caller: AuthUser, dto: CreateUserDto): Promise<UserResponse> {
    const user = await this.dataSource.transaction(async (manager) => {
      await this.assertEmailFree(manager, dto.email);
      const roles = await this.roles.resolve(manager, dto.roles ?? []);
      this.roles.assertMayChange(
        caller,
        null,
        [],
        roles.map((r) => r.name),
      );
      const created = await this.users.insert(
        { name: dto.name, email: dto.email, password: await this.hasher.hash(dto.password), is_active: true },
        manager,
      );
      await this.roles.replace(manager, created.id, roles);
      return created;
    });
    return this.get(user.id);
  }

  async update(caller: AuthUser, id: number, dto: UpdateUserDto): Promise<UserResponse> {
    await this.dataSource.transaction(async (manager) => {
      const user = await this.find(id, manager);
      const current = (await this.access.forUser(user.id)).roles;
      this.roles.assertMayManage(caller, current);
      if (dto.is_active === false && user.id === caller.id) {
        throw new DeleteConflict('You cannot deactivate your own account.');
      }
      if (dto.email !== user.email) await this.assertEmailFree(manager, dto.email, user.id);
      if (dto.roles !== undefined) {
        const roles = await this.roles.resolve(manager, dto.roles);
        this.roles.assertMayChange(
          caller,
          user.id,
          current,
          roles.map((r) => r.name),
        );
        await this.roles.replace(manager, user.id, roles);
      }
      const deactivating = dto.is_active === false && user.is_active;
      user.name = dto.name;
      user.email = dto.email;
      if (dto.is_active !== undefined) user.is_active = dto.is_active;
      if (dto.password) user.password = await this.hasher.hash(dto.password);
      await this.users.save(user, manager);
      if (deactivating || dto.password) await this.tokens.revokeAllOfUser(manager, user.id);
    });
    return this.get(id);
  }

  async delete(caller: AuthUser, id: number): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const user = await this.find(id, manager);
      if (user.id === caller.id) throw new DeleteConflict('You cannot delete your own account.');
      this.roles.assertMayManage(caller, (await this.access.forUser(user.id)).roles);
      await this.tokens.revokeAllOfUser(manager, user.id);
      await this.roles.replace(manager, user.id, []);
      await manager.delete('model_has_permissions', { model_type: 'user', model_id: user.id });
      await this.users.remove(user, manager);
    });
  }

  private async find(id: number, manager?: EntityManager): Promise<User> {
    const user = await this.users.findById(id, manager);
    if (!user) throw new RecordNotFound('user');
    return user;
  }

  /** E-mail addresses are unique across every tenant. */
  private async assertEmailFree(manager: EntityManager, email: string, exceptId?: number): Promise<void> {
    const taken = await manager.exists(User, { where: exceptId ? { email, id: Not(exceptId) } : { email } });
    if (taken) throw ValidationFailed.field('email', 'The email has already been taken.');
  }

  private async withRoles(users: User[]): Promise<UserResponse[]> {
    const access = await this.access.forUsers(users.map((u) => Number(u.id)));
    return users.map((user) => toUserResponse(user, access.get(Number(user.id))?.roles ?? []));
  }
}
