import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../common/auth/auth-context.js';
import type { AuthUser } from '../../common/auth/auth-user.js';
import { PasswordHasher } from '../../common/auth/password-hasher.js';
import { ValidationFailed } from '../../common/http/api-exception.js';
import { Tables } from '../../common/persistence/tables.js';
import { AccessTokenService } from './access-token.service.js';
import type { LoginDto } from './dto/login.dto.js';
import type { LoginResponse } from './dto/login.response.js';
import { toUserResponse, type CurrentUserResponse } from './dto/user.response.js';
import { Tenant } from './entities/tenant.entity.js';
import { User } from './entities/user.entity.js';
import { UserAccessReader } from './user-access.reader.js';

@Injectable()
export class AuthService {
  constructor(
    private readonly tables: Tables,
    private readonly hasher: PasswordHasher,
    private readonly tokens: AccessTokenService,
    private readonly access: UserAccessReader,
  ) {}

  async login(dto: LoginDto): Promise<LoginResponse> {
    // E-mail addresses are unique across tenants: the one cross-tenant read of a user by e-mail.
    const [user] = await this.tables.readAcrossTenants(User).findWhere({ email: dto.email });
    if (!(await this.hasher.verify(dto.password, user?.password))) {
      throw ValidationFailed.field('email', 'The provided credentials are incorrect.');
    }
    const tenant = await this.tables.readAcrossTenants(Tenant).findById(user.tenant_id);
    if (!user.is_active || !tenant?.is_active) {
      throw ValidationFailed.field('email', 'This account is inactive.');
    }
    const issued = await this.tokens.issue(user.id, dto.device_name);
    const { roles } = await this.access.forUser(user.id);
    return {
      token: issued.token,
      token_type: 'Bearer',
      expires_at: issued.expires_at.toISOString(),
      user: toUserResponse(user, roles),
    };
  }

  async logout(user: AuthUser): Promise<null> {
    await this.tokens.revoke(user.tokenId);
    return null;
  }

  /** The caller's own record (a super-admin acting in another tenant is still a user of their own). */
  async currentUser(auth: AuthContext): Promise<CurrentUserResponse> {
    const caller = auth.user;
    const user = await this.tables.readAcrossTenants(User).findById(caller.id);
    if (!user) throw new Error('The authenticated user has no row.');
    return { ...toUserResponse(user, caller.roles), permissions: [...caller.permissions].sort() };
  }
}
