import { assertIfMatch } from '../../common/http/conditional.js';
import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../common/auth/auth-context.js';
import { PasswordHasher } from '../../common/auth/password-hasher.js';
import { DeleteConflict, RecordNotFound, ValidationFailed } from '../../common/http/api-exception.js';
import { Page } from '../../common/http/page.js';
import { containsCondition } from '../../common/persistence/contains.js';
import { pageRequest, type Condition } from '../../common/persistence/keyset.js';
import { Tables, type TenantReads, type TenantTx } from '../../common/persistence/tables.js';
import type { Values } from '../../common/persistence/table-gateway.js';
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
  ) {
    // A user's events show the user as GET /api/admin/users/{id} does, roles read in the write's transaction.
    tables.publish(User, {
      resource: 'user',
      present: async (reads, users) => {
        const access = await this.access.forUsers(
          users.map((u) => u.id),
          { query: (sql, params) => reads.select(sql, params) },
        );
        return users.map((user) => toUserResponse(user, access.get(user.id)?.roles ?? []));
      },
    });
  }

  async list(auth: AuthContext, query: UserListQueryDto): Promise<Page<UserResponse>> {
    const users = this.tables.read(auth).table(User);
    const conditions: Condition[] = [];
    if (query.q) conditions.push(containsCondition(['`users`.`name`', '`users`.`email`'], query.q, users.dialect));
    if (query.is_active !== undefined) conditions.push({ sql: '`users`.`is_active` = ?', params: [query.is_active] });
    const { rows, meta } = await users.page(pageRequest(query, SORTS), conditions, conditions.length > 0);
    return new Page(await this.withRoles(rows), meta);
  }

  async get(auth: AuthContext, id: number): Promise<UserResponse> {
    const [response] = await this.withRoles([await this.find(this.tables.read(auth), id)]);
    return response;
  }

  async create(auth: AuthContext, dto: CreateUserDto): Promise<UserResponse> {
    const password = await this.hasher.hash(dto.password);
    const user = await this.tables.writeWithBookkeeping(auth, async (tx, bookkeeping) => {
      await this.assertEmailFree(tx, dto.email);
      const roles = await this.roles.resolve(bookkeeping, dto.roles ?? []);
      this.roles.assertMayChange(
        auth.user,
        null,
        [],
        roles.map((r) => r.name),
      );
      const created = await tx.table(User).insert({ name: dto.name, email: dto.email, password, is_active: true });
      await this.roles.assign(bookkeeping, created.id, roles);
      return created;
    });
    return this.get(auth, user.id);
  }

  async update(auth: AuthContext, id: number, dto: UpdateUserDto): Promise<UserResponse> {
    const caller = auth.user;
    const password = dto.password ? await this.hasher.hash(dto.password) : undefined;
    await this.tables.writeWithBookkeeping(auth, async (tx, bookkeeping) => {
      const users = tx.table(User);
      const user = await this.find(tx, id, true); // locked: the answer and its event show the user as stored
      const current = (await this.access.forUser(user.id, bookkeeping)).roles;
      assertIfMatch(auth.ifMatch, toUserResponse(user, current));
      this.roles.assertMayManage(caller, current);
      if (dto.is_active === false && user.id === caller.id) {
        throw new DeleteConflict('You cannot deactivate your own account.');
      }
      if (dto.email !== user.email) await this.assertEmailFree(tx, dto.email, user.id);
      const deactivating = dto.is_active === false && user.is_active;
      const values: Values<User> = { name: dto.name, email: dto.email };
      if (dto.is_active !== undefined) values.is_active = dto.is_active;
      if (password) values.password = password;
      const updated = await users.update(user, values);
      if (!updated) throw new RecordNotFound('user');
      if (dto.roles !== undefined) {
        const roles = await this.roles.resolve(bookkeeping, dto.roles);
        this.roles.assertMayChange(
          caller,
          user.id,
          current,
          roles.map((r) => r.name),
        );
        await this.roles.replace(tx, bookkeeping, updated, current, roles);
      }
      if (deactivating || password) await this.tokens.revokeAllOfUser(bookkeeping, user.id);
    });
    return this.get(auth, id);
  }

  async delete(auth: AuthContext, id: number): Promise<null> {
    return this.tables.writeWithBookkeeping(auth, async (tx, bookkeeping) => {
      const user = await this.find(tx, id, true);
      const current = (await this.access.forUser(user.id, bookkeeping)).roles;
      assertIfMatch(auth.ifMatch, toUserResponse(user, current));
      if (user.id === auth.user.id) throw new DeleteConflict('You cannot delete your own account.');
      this.roles.assertMayManage(auth.user, current);
      await this.tokens.revokeAllOfUser(bookkeeping, user.id);
      await this.roles.removeAll(bookkeeping, user.id);
      if (!(await tx.table(User).remove(user))) throw new RecordNotFound('user');
      return null;
    });
  }

  private async find(reads: TenantReads, id: number, lock = false): Promise<User> {
    const user = await reads.table(User).findById(id, { lock });
    if (!user) throw new RecordNotFound('user');
    return user;
  }

  /** E-mail addresses are unique across every tenant. */
  private async assertEmailFree(tx: TenantTx, email: string, exceptId?: number): Promise<void> {
    if (await tx.acrossTenants(User).exists({ email }, exceptId)) {
      throw ValidationFailed.field('email', 'The email has already been taken.');
    }
  }

  private async withRoles(users: User[]): Promise<UserResponse[]> {
    const access = await this.access.forUsers(users.map((u) => u.id));
    return users.map((user) => toUserResponse(user, access.get(user.id)?.roles ?? []));
  }
}
