import { assertIfMatch } from '../../common/http/conditional.js';
import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../common/auth/auth-context.js';
import { USER_MODEL_TYPE } from '../../common/auth/auth-user.js';
import { PasswordHasher } from '../../common/auth/password-hasher.js';
import type { Sql } from '../../common/data/database.js';
import { DeleteConflict, RecordNotFound, ValidationFailed } from '../../common/http/api-exception.js';
import { Page } from '../../common/http/page.js';
import { containsCondition } from '../../common/data/contains.js';
import { pageRequest, type Condition } from '../../common/data/keyset.js';
import type { ScopedTable } from '../../common/data/scoped-table.js';
import { Tables } from '../../common/data/tables.js';
import { AccessTokenService } from '../auth/access-token.service.js';
import { toUserResponse, type UserResponse } from '../auth/dto/user.response.js';
import { User } from '../auth/entities/user.entity.js';
import { UserAccessReader } from '../auth/user-access.reader.js';
import type { CreateUserDto, UpdateUserDto, UserListQueryDto } from './dto/user.dto.js';
import { RoleAssignments } from './role-assignments.js';

const SORTS = { name: 'string', email: 'string', created_at: 'date' } as const;

/** The users of the caller's tenant, with the §8 rules on roles, self-service and revocation. */
@Injectable()
export class UsersService {
  constructor(
    private readonly tables: Tables,
    private readonly access: UserAccessReader,
    private readonly roles: RoleAssignments,
    private readonly hasher: PasswordHasher,
    private readonly tokens: AccessTokenService,
  ) {}

  async list(auth: AuthContext, query: UserListQueryDto): Promise<Page<UserResponse>> {
    const users = this.tables.scoped(User, auth);
    const conditions: Condition[] = [];
    if (query.q) conditions.push(containsCondition(['`users`.`name`', '`users`.`email`'], query.q, users.dialect));
    if (query.is_active !== undefined) conditions.push({ sql: '`users`.`is_active` = ?', params: [query.is_active] });
    const { rows, meta } = await users.page(pageRequest(query, SORTS), conditions, conditions.length > 0);
    return new Page(await this.withRoles(rows), meta);
  }

  async get(auth: AuthContext, id: number): Promise<UserResponse> {
    const [response] = await this.withRoles([await this.find(this.tables.scoped(User, auth), id)]);
    return response;
  }

  async create(auth: AuthContext, dto: CreateUserDto): Promise<UserResponse> {
    const password = await this.hasher.hash(dto.password);
    const user = await this.tables.db.transaction(async (sql) => {
      await this.assertEmailFree(sql, dto.email);
      const roles = await this.roles.resolve(sql, dto.roles ?? []);
      this.roles.assertMayChange(
        auth.user,
        null,
        [],
        roles.map((r) => r.name),
      );
      const created = await this.tables
        .scoped(User, auth, sql)
        .insert({ name: dto.name, email: dto.email, password, is_active: true });
      await this.roles.replace(sql, created.id, roles);
      return created;
    });
    return this.get(auth, user.id);
  }

  async update(auth: AuthContext, id: number, dto: UpdateUserDto): Promise<UserResponse> {
    const caller = auth.user;
    const password = dto.password ? await this.hasher.hash(dto.password) : undefined;
    await this.tables.db.transaction(async (sql) => {
      const users = this.tables.scoped(User, auth, sql);
      const user = await this.find(users, id, auth.ifMatch !== undefined);
      const current = (await this.access.forUser(user.id, sql)).roles;
      assertIfMatch(auth.ifMatch, toUserResponse(user, current));
      this.roles.assertMayManage(caller, current);
      if (dto.is_active === false && user.id === caller.id) {
        throw new DeleteConflict('You cannot deactivate your own account.');
      }
      if (dto.email !== user.email) await this.assertEmailFree(sql, dto.email, user.id);
      if (dto.roles !== undefined) {
        const roles = await this.roles.resolve(sql, dto.roles);
        this.roles.assertMayChange(
          caller,
          user.id,
          current,
          roles.map((r) => r.name),
        );
        await this.roles.replace(sql, user.id, roles);
      }
      const deactivating = dto.is_active === false && user.is_active;
      const updated = await users.update(user, {
        name: dto.name,
        email: dto.email,
        ...(dto.is_active !== undefined ? { is_active: dto.is_active } : {}),
        ...(password ? { password } : {}),
      });
      if (!updated) throw new RecordNotFound('user');
      if (deactivating || password) await this.tokens.revokeAllOfUser(sql, user.id);
    });
    return this.get(auth, id);
  }

  async delete(auth: AuthContext, id: number): Promise<null> {
    await this.tables.db.transaction(async (sql) => {
      const users = this.tables.scoped(User, auth, sql);
      const user = await this.find(users, id, true);
      const current = (await this.access.forUser(user.id, sql)).roles;
      assertIfMatch(auth.ifMatch, toUserResponse(user, current));
      if (user.id === auth.user.id) throw new DeleteConflict('You cannot delete your own account.');
      this.roles.assertMayManage(auth.user, current);
      await this.tokens.revokeAllOfUser(sql, user.id);
      await this.roles.replace(sql, user.id, []);
      await sql.run('DELETE FROM model_has_permissions WHERE model_type = ? AND model_id = ?', [
        USER_MODEL_TYPE,
        user.id,
      ]);
      if (!(await users.remove(user))) throw new RecordNotFound('user');
    });
    return null;
  }

  private async find(users: ScopedTable<User>, id: number, lock = false): Promise<User> {
    const user = await users.findById(id, { lock });
    if (!user) throw new RecordNotFound('user');
    return user;
  }

  /** E-mail addresses are unique across every tenant. */
  private async assertEmailFree(sql: Sql, email: string, exceptId?: number): Promise<void> {
    const taken = await sql.query('SELECT 1 AS taken FROM users WHERE email = ? AND id <> ? LIMIT 1', [
      email,
      exceptId ?? 0,
    ]);
    if (taken.length) throw ValidationFailed.field('email', 'The email has already been taken.');
  }

  private async withRoles(users: User[]): Promise<UserResponse[]> {
    const access = await this.access.forUsers(users.map((u) => u.id));
    return users.map((user) => toUserResponse(user, access.get(user.id)?.roles ?? []));
  }
}
