import { Injectable } from '@nestjs/common';

/** Whole-selection statements (counts, bucket summaries) one instance runs at once. */
export const SCAN_SLOTS = 4;

/**
 * Bounds the heavy statements of member counts and summaries, which are split into ranges read
 * side by side: however many such requests arrive, they hold at most SCAN_SLOTS of the pool's
 * connections (10), so that reads of single records never wait behind them.
 */
@Injectable()
export class ScanSlots {
  private free = SCAN_SLOTS;
  private readonly waiting: (() => void)[] = [];

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.free > 0) this.free--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.free++;
    }
  }
}
