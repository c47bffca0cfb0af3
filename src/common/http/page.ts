export interface PageMeta {
  limit: number;
  next_cursor: string | null;
  has_more: boolean;
  total?: number;
}

/** One page of a list (or any array answer with a `meta`); the envelope hook puts `data` and `meta` side by side. */
export class Page<T, M extends object = PageMeta> {
  constructor(
    readonly data: T[],
    readonly meta: M,
  ) {}
}
