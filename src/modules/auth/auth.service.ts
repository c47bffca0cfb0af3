import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { AuthUser } from '../../common/auth/auth-user.js';
import { PasswordHasher } from '../../common/auth/password-hasher.js';
import { ValidationFailed } from '../../common/http/api-exception.js';
import { toUserResponse, type CurrentUserResponse } from '../admin/dto/user.response.js';
import { Tenant } from '../admin/entities/tenant.entity.js';
import { User } from '../admin/entities/user.entity.js';
import { UserAccessReader } from '../admin/user-access.reader.js';
import { AccessTokenService } from './access-token.service.js';
import type { LoginDto } from './dto/login.dto.js';
import type { LoginResponse } from './dto/login.response.js';

@Injectable()
export class AuthService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly hasher: PasswordHasher,
    private readonly tokens: AccessTokenService,
    private readonly access: UserAccessReader,
  ) {}

  async login(dto: LoginDto): Promise<LoginResponse> {
    const user = await this.dataSource
      .getRepository(User)
      .createQueryBuilder('u')
      .addSelect('u.password')
      .where('u.email = :email', { email: dto.email })
      .getOne();
    if (!(await this.hasher.verify(dto.password, user?.password))) {
      throw ValidationFailed.field('email', 'The provided credentials are incorrect.');
    }
    const account = user!;
    const tenant = await this.dataSource.getRepository(Tenant).findOneBy({ id: account.tenant_id });
    if (!account.is_active || !tenant?.is_active) {
      throw ValidationFailed.field('email', 'This account is inactive.');
    }
    const issued = await this.dataSource.transaction((manager) =>
      this.tokens.issue(manager, account.id, dto.device_name),
    );
    const { roles } = await this.access.forUser(account.id);
    return {
      token: issued.token,
      token_type: 'Bearer',
      expires_at: issued.expires_at.toISOString(),
      user: toUserResponse(account, roles),
    };
  }

  async logout(user: AuthUser): Promise<void> {
    await this.tokens.revoke(user.tokenId);
  }

  async currentUser(caller: AuthUser): Promise<CurrentUserResponse> {
    const user = await this.dataSource.getRepository(User).findOneByOrFail({ id: caller.id });
    return { ...toUserResponse(user, caller.roles), permissions: [...caller.permissions].sort() };
  }
}
