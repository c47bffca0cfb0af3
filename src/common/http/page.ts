export interface PageMeta {
  limit: number;
  next_cursor: string | null;
  has_more: boolean;
  total?: number;
}

/** One page of a list; the envelope interceptor puts `data` and `meta` side by side. */
export class Page<T> {
  constructor(
    readonly data: T[],
    readonly meta: PageMeta,
  ) {}
}
