export interface PageMeta {
  limit: number;
  next_cursor: string | null;
  has_more: boolean;
  total?: number;
}

/** An answer with a `meta` beside its `data` (a merge's merged ids); the envelope hook puts them side by side. */
export class WithMeta<D, M extends object> {
  constructor(
    readonly data: D,
    readonly meta: M,
  ) {}
}

/** One page of a list (or any array answer with a `meta`). */
export class Page<T, M extends object = PageMeta> extends WithMeta<T[], M> {}
