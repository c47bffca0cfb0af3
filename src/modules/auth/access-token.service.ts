import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { wholeSecondNow } from '../../common/persistence/columns.js';
import { USER_MODEL_TYPE, type AuthUser } from '../../common/auth/auth-user.js';
import { APP_CONFIG, type AppConfig } from '../../common/config/app-config.js';
import { Database, type Sql } from '../../common/persistence/database.js';
import { toDate } from '../../common/http/serialize.js';
import { tenantStateOf, tenantStateSelectList } from '../../common/usage/tenant-limits.js';
import { digestMatches, hashToken, tokenDigest } from './token-hash.js';
import { UserAccessReader } from './user-access.reader.js';

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
  access_version: number | string;
  [limit: string]: unknown;
}

/** last_used_at is written at most this often per token, so reads stay reads. */
const LAST_USED_RESOLUTION_MS = 60_000;

const TOKEN_OWNER_SQL = `SELECT t.id AS token_id, t.token AS token_hash, t.expires_at, t.last_used_at,
         u.id AS user_id, u.tenant_id, u.name, u.email, u.is_active AS user_active, n.is_active AS tenant_active,
         u.access_version, ${tenantStateSelectList('n')}
    FROM personal_access_tokens t
    JOIN users u ON u.id = t.tokenable_id AND t.tokenable_type = ?
    JOIN tenants n ON n.id = u.tenant_id
   WHERE t.id = ?`;

/**
 * Personal access tokens: one row per login, named by the device; the JWT's `jti` is the row's
 * id and the row stores only the token's hash. Deleting the row revokes the token at once.
 */
@Injectable()
export class AccessTokenService {
  constructor(
    private readonly db: Database,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly jwt: JwtService,
    private readonly access: UserAccessReader,
  ) {}

  /** A new token of the user: its row and the JWT naming it, in one transaction. */
  issue(userId: number, deviceName: string): Promise<IssuedToken> {
    return this.db.transaction((sql) => this.insert(sql, userId, deviceName));
  }

  private async insert(sql: Sql, userId: number, deviceName: string): Promise<IssuedToken> {
    const now = wholeSecondNow();
    const expiresAt = new Date(now.getTime() + this.config.tokenTtlMinutes * 60_000);
    const { insertId } = await sql.run(
      `INSERT INTO personal_access_tokens (tokenable_type, tokenable_id, name, token, abilities, expires_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, '["*"]', ?, ?, ?)`,
      // A unique placeholder until the JWT (which names this row) exists.
      [
        USER_MODEL_TYPE,
        userId,
        deviceName,
        hashToken(`pending:${userId}:${Date.now()}:${Math.random()}`),
        expiresAt,
        now,
        now,
      ],
    );
    const token = this.jwt.sign(
      { sub: userId, jti: String(insertId) },
      { expiresIn: Math.floor((expiresAt.getTime() - Date.now()) / 1000) },
    );
    await sql.run('UPDATE personal_access_tokens SET token = ? WHERE id = ?', [hashToken(token), insertId]);
    return { token, expires_at: expiresAt };
  }

  /**
   * The caller behind a signature-checked token, or null when its row is gone, expired or its owner
   * locked out: one query for token, user and tenant; permissions from the per-version cache.
   */
  async authenticate(
    token: string,
    claims: AccessTokenClaims,
    digest: Buffer = tokenDigest(token),
  ): Promise<AuthUser | null> {
    const tokenId = Number(claims.jti);
    if (!Number.isSafeInteger(tokenId) || tokenId < 1) return null;
    const [row] = await this.db.query<TokenOwnerRow>(TOKEN_OWNER_SQL, [USER_MODEL_TYPE, tokenId]);
    if (!row || !digestMatches(digest, row.token_hash)) return null;
    if (!Number(row.user_active) || !Number(row.tenant_active)) return null;
    const expiresAt = toDate(row.expires_at);
    if (expiresAt && expiresAt.getTime() <= Date.now()) return null;

    const userId = Number(row.user_id);
    const { roles, permissions } = await this.access.forUserAtVersion(userId, Number(row.access_version));
    await this.touch(tokenId, toDate(row.last_used_at));
    return {
      id: userId,
      tenant_id: Number(row.tenant_id),
      name: row.name,
      email: row.email,
      roles,
      permissions,
      tokenId,
      tenant: tenantStateOf(row),
    };
  }

  async revoke(tokenId: number): Promise<void> {
    await this.db.run('DELETE FROM personal_access_tokens WHERE id = ?', [tokenId]);
  }

  async revokeAllOfUser(sql: Sql, userId: number): Promise<void> {
    await this.revokeAllOfUsers(sql, [userId]);
  }

  /** Every token of these users (a deactivated tenant's), in slices of a thousand. */
  async revokeAllOfUsers(sql: Sql, userIds: readonly number[]): Promise<void> {
    for (let start = 0; start < userIds.length; start += 1000) {
      const slice = userIds.slice(start, start + 1000);
      await sql.run(
        `DELETE FROM personal_access_tokens WHERE tokenable_type = ? AND tokenable_id IN (${slice.map(() => '?').join(', ')})`,
        [USER_MODEL_TYPE, ...slice],
      );
    }
  }

  private async touch(tokenId: number, lastUsedAt: Date | null): Promise<void> {
    const now = Date.now();
    if (lastUsedAt && now - lastUsedAt.getTime() < LAST_USED_RESOLUTION_MS) return;
    // The condition keeps concurrent requests from writing the same minute twice.
    await this.db.run(
      'UPDATE personal_access_tokens SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)',
      [new Date(now), tokenId, new Date(now - LAST_USED_RESOLUTION_MS)],
    );
  }
}
