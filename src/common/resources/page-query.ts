import type { SureInput } from '../http/input-pipe.js';
import { CURSOR_TEXT } from '../persistence/cursor.js';
import { ListQueryDto, MAX_PAGE_SIZE } from './list-query.dto.js';

/** A page size as a query string writes it: digits without a leading zero (then at most MAX_PAGE_SIZE). */
const PAGE_SIZE_TEXT = /^[1-9]\d{0,2}$/;

/**
 * Every list's query as a client paging through it sends it, `?limit=` and `?cursor=` alone: the
 * validation pipe skips class-validator (about 2 % of a page's CPU) for such a query. Anything else,
 * a filter, a sort, a repeated key, goes to the list's DTO.
 */
export const PAGE_QUERY_SURE_INPUT: SureInput = {
  dto: ListQueryDto,
  source: 'query',
  check(query, metatype) {
    let limit: number | undefined;
    let cursor: string | undefined;
    for (const key in query) {
      const value = query[key];
      if (key === 'limit' && typeof value === 'string' && PAGE_SIZE_TEXT.test(value) && Number(value) <= MAX_PAGE_SIZE)
        limit = Number(value);
      else if (key === 'cursor' && typeof value === 'string' && CURSOR_TEXT.test(value)) cursor = value;
      else return undefined;
    }
    const dto = new metatype() as ListQueryDto;
    if (limit !== undefined) dto.limit = limit;
    if (cursor !== undefined) dto.cursor = cursor;
    return dto;
  },
};
