import { Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { PollingLoop } from './polling-loop.js';

/** The job rows of one kind, leased (never locked) to the instance that runs one. */
export interface LeasedJobs<J> {
  claimNext(owner: string): Promise<J | undefined>;
}

/** Runs one claimed job until it ends or `shouldStop` says so (then it gives the job back). */
export interface JobProcessor<J, E> {
  run(job: J, owner: string, shouldStop: () => boolean): Promise<E>;
}

/**
 * A background job runner of this instance: started with the application (when `runner` is set),
 * it claims one job at a time under a lease and runs it; idle, it looks again every `pollMs`. On
 * shutdown it lets the current step commit, gives the job back and returns, well within the 10 s of
 * a SIGTERM; after a crash the lease runs out and any instance resumes the job.
 */
export abstract class LeasedJobRunner<J extends { id: number }, E>
  implements OnApplicationBootstrap, BeforeApplicationShutdown
{
  /** This instance, as `lease_owner`. */
  readonly owner = `${hostname().slice(0, 40)}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly logger: Logger;
  private readonly loop: PollingLoop;

  protected constructor(
    private readonly kind: { logger: string; job: string; describe?: (job: J) => string },
    private readonly jobs: LeasedJobs<J>,
    private readonly processor: JobProcessor<J, E>,
    private readonly settings: { runner: boolean; pollMs: number },
  ) {
    this.logger = new Logger(kind.logger);
    this.loop = new PollingLoop(this.logger, settings.pollMs, async () => (await this.runOnce()) !== undefined);
  }

  onApplicationBootstrap(): void {
    if (this.settings.runner) this.loop.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.loop.stop();
  }

  /** A job was queued on this instance: look now rather than at the next poll. */
  nudge(): void {
    this.loop.nudge();
  }

  /** Claims and runs one job if there is one (also what tests call on an instance without a loop). */
  async runOnce(): Promise<E | undefined> {
    const job = await this.jobs.claimNext(this.owner);
    if (!job) return undefined;
    if (this.kind.describe) this.logger.log(`${this.kind.job} ${job.id}: ${this.kind.describe(job)}`);
    const end = await this.processor.run(job, this.owner, () => this.loop.isStopping);
    this.logger.log(`${this.kind.job} ${job.id}: ${String(end)}`);
    return end;
  }
}
