import type { Logger } from '@nestjs/common';

/**
 * A background worker's loop: runs `step` again at once while it finds work, waits `pollMs` when it
 * finds none (or a nudge, whichever comes first), and on `stop` lets the current step finish.
 * A step that throws is logged and the loop waits as if idle.
 */
export class PollingLoop {
  private stopping = false;
  private running: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly pollMs: number,
    /** Answers whether it found work. */
    private readonly step: () => Promise<boolean>,
  ) {}

  get isStopping(): boolean {
    return this.stopping;
  }

  start(): void {
    this.running ??= this.work();
  }

  /** Work was queued on this instance: look now rather than at the next poll. */
  nudge(): void {
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.running;
  }

  private async work(): Promise<void> {
    while (!this.stopping) {
      let found = false;
      try {
        found = await this.step();
      } catch (error) {
        this.logger.warn(error instanceof Error ? error.message : String(error));
      }
      if (!found && !this.stopping) await this.idle();
    }
  }

  private idle(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, this.pollMs);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
