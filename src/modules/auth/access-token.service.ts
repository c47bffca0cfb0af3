import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import type { AuthUser } from '../../common/auth/auth-user.js';
import { APP_CONFIG, type AppConfig } from '../../common/config/app-config.js';
import { toDate } from '../../common/http/serialize.js';
import { USER_MODEL_TYPE } from '../admin/entities/user.entity.js';
import { UserAccessReader } from '../admin/user-access.reader.js';
import { PersonalAccessToken } from './entities/personal-access-token.entity.js';
import { hashToken, tokenMatches } from './token-hash.js';

export interface AccessTokenClaims {
  sub: number;
  jti: string;
}

export interface IssuedToken {
  token: string;
  expires_at: Date;
}

interface TokenOwnerRow {
  token_id: number | string;
  token_hash: string;
  expires_at: Date | string | null;
  last_used_at: Date | string | null;
  user_id: number | string;
  tenant_id: number | string;
  name: string;
  email: string;
  user_active: number | boolean;
  tenant_active: number | boolean;
}

/** last_used_at is written at most this often per token, so reads stay reads. */
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Personal access tokens: one row per login, named by the device; the JWT's `jti` is the row's
 * id and the row stores only the token's hash. Deleting the row revokes the token at once.
 */
@Injectable()
export class AccessTokenService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly jwt: JwtService,
    private readonly access: UserAccessReader,
  ) {}

  async issue(manager: EntityManager, userId: number, deviceName: string): Promise<IssuedToken> {
    const expiresAt = new Date(Date.now() + this.config.tokenTtlMinutes * 60_000);
    expiresAt.setMilliseconds(0);
    const row = await manager.save(
      manager.create(PersonalAccessToken, {
        tokenable_type: USER_MODEL_TYPE,
        tokenable_id: userId,
        name: deviceName,
        // Unique placeholder until the JWT (which names this row) exists.
        token: hashToken(`pending:${userId}:${Date.now()}:${Math.random()}`),
        abilities: '["*"]',
        expires_at: expiresAt,
      }),
    );
    const token = this.jwt.sign(
      { sub: userId, jti: String(row.id) },
      { expiresIn: Math.floor((expiresAt.getTime() - Date.now()) / 1000) },
    );
    await manager.update(PersonalAccessToken, { id: row.id }, { token: hashToken(token) });
    return { token, expires_at: expiresAt };
  }

  /** The caller behind a signature-checked token, or null when its row is gone, expired or its owner locked out. */
  async authenticate(token: string, claims: AccessTokenClaims): Promise<AuthUser | null> {
    const tokenId = Number(claims.jti);
    if (!Number.isSafeInteger(tokenId) || tokenId < 1) return null;
    const [row]: TokenOwnerRow[] = await this.dataSource.query(
      `SELECT t.id AS token_id, t.token AS token_hash, t.expires_at, t.last_used_at,
              u.id AS user_id, u.tenant_id, u.name, u.email, u.is_active AS user_active, n.is_active AS tenant_active
         FROM personal_access_tokens t
         JOIN users u ON u.id = t.tokenable_id AND t.tokenable_type = ?
         JOIN tenants n ON n.id = u.tenant_id
        WHERE t.id = ?`,
      [USER_MODEL_TYPE, tokenId],
    );
    if (!row || !tokenMatches(token, row.token_hash)) return null;
    if (!Number(row.user_active) || !Number(row.tenant_active)) return null;
    const expiresAt = toDate(row.expires_at);
    if (expiresAt && expiresAt.getTime() <= Date.now()) return null;

    const userId = Number(row.user_id);
    const { roles, permissions } = await this.access.forUser(userId);
    await this.touch(tokenId, toDate(row.last_used_at));
    return {
      id: userId,
      tenant_id: Number(row.tenant_id),
      name: row.name,
      email: row.email,
      roles,
      permissions,
      tokenId,
    };
  }

  async revoke(tokenId: number): Promise<void> {
    // In a transaction of its own so that it never lands inside another request's (SQLite).
    await this.dataSource.transaction((manager) => manager.delete(PersonalAccessToken, { id: tokenId }));
  }

  async revokeAllOfUser(manager: EntityManager, userId: number): Promise<void> {
    await manager.delete(PersonalAccessToken, { tokenable_type: USER_MODEL_TYPE, tokenable_id: userId });
  }

  async revokeAllOfTenant(manager: EntityManager, tenantId: number): Promise<void> {
    await manager
      .createQueryBuilder()
      .delete()
      .from(PersonalAccessToken)
      .where('tokenable_type = :type', { type: USER_MODEL_TYPE })
      .andWhere('tokenable_id IN (SELECT id FROM users WHERE tenant_id = :tenantId)', { tenantId })
      .execute();
  }

  private async touch(tokenId: number, lastUsedAt: Date | null): Promise<void> {
    const now = Date.now();
    if (lastUsedAt && now - lastUsedAt.getTime() < LAST_USED_RESOLUTION_MS) return;
    const threshold = new Date(now - LAST_USED_RESOLUTION_MS);
    // The condition keeps concurrent requests from writing the same minute twice.
    await this.dataSource
      .getRepository(PersonalAccessToken)
      .createQueryBuilder()
      .update()
      .set({ last_used_at: new Date(now) })
      .where('id = :tokenId', { tokenId })
      .andWhere('(last_used_at IS NULL OR last_used_at < :threshold)', { threshold })
      .execute();
  }
}
