import { Injectable } from '@nestjs/common';
import type { AuthContext } from '../../common/auth/auth-context.js';
import { USER_MODEL_TYPE } from '../../common/auth/auth-user.js';
import { Database } from '../../common/persistence/database.js';
import { RecordNotFound } from '../../common/http/api-exception.js';
import { Page } from '../../common/http/page.js';
import { toDate } from '../../common/http/serialize.js';
import { keysetCondition, keysetOrder, pageOf, pageRequest, type Condition } from '../../common/persistence/keyset.js';
import type { ListQueryDto } from '../../common/resources/list-query.dto.js';
import { toTokenResponse, type TokenResponse, type TokenRow } from './dto/token.response.js';

const SORTS = { name: 'string', created_at: 'date' } as const;

/** The caller's own devices: their personal access tokens, listed and revoked by their owner. */
@Injectable()
export class UserTokensService {
  constructor(private readonly db: Database) {}

  async list(auth: AuthContext, query: ListQueryDto): Promise<Page<TokenResponse>> {
    const request = pageRequest(query, SORTS);
    const column = `t.${request.sort.field}`;
    const where: Condition[] = [
      { sql: 't.tokenable_type = ? AND t.tokenable_id = ?', params: [USER_MODEL_TYPE, auth.user.id] },
    ];
    let total: number | undefined;
    if (request.withTotal) {
      const [row] = await this.db.query<{ n: number | string }>(
        'SELECT COUNT(*) AS n FROM personal_access_tokens t WHERE t.tokenable_type = ? AND t.tokenable_id = ?',
        [USER_MODEL_TYPE, auth.user.id],
      );
      total = Number(row?.n ?? 0);
    }
    if (request.after) where.push(keysetCondition(column, 't.id', request.sort, request.after));
    const rows = await this.db.query<TokenRow>(
      `SELECT t.id, t.name, t.created_at, t.last_used_at, t.expires_at FROM personal_access_tokens t
        WHERE ${where.map((c) => c.sql).join(' AND ')}
        ORDER BY ${keysetOrder(column, 't.id', request.sort)} LIMIT ${request.limit + 1}`,
      where.flatMap((c) => c.params),
    );
    const page = pageOf(rows, request, total, (row) => ({
      value: request.sort.type === 'date' ? toDate(row.created_at) : row.name,
      id: Number(row.id),
    }));
    return new Page(
      page.rows.map((row) => toTokenResponse(row, auth.user.tokenId)),
      page.meta,
    );
  }

  /** Revokes one of the caller's tokens at once (the current one included); another user's id is a 404. */
  async revoke(auth: AuthContext, id: number): Promise<null> {
    const { affected } = await this.db.run(
      'DELETE FROM personal_access_tokens WHERE id = ? AND tokenable_type = ? AND tokenable_id = ?',
      [id, USER_MODEL_TYPE, auth.user.id],
    );
    if (affected === 0) throw new RecordNotFound('token');
    return null;
  }
}
