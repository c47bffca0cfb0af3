import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { APP_CONFIG, type AppConfig } from '../../../common/config/app-config.js';
import { PollingLoop } from '../../../common/lifecycle/polling-loop.js';
import { ErasureJobs } from './erasure-jobs.js';
import { ErasureProcessor, type ErasureEnd } from './erasure-processor.js';

/**
 * The erasure runner of this instance: claims one job at a time under a lease (ErasureJobs) and
 * runs it; on shutdown it lets the current batch commit and gives the job back; after a crash the
 * lease runs out and any instance resumes it.
 */
@Injectable()
export class ErasureRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  /** This instance, as `lease_owner`. */
  readonly owner = `${hostname().slice(0, 40)}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly logger = new Logger('CustomerErasures');
  private readonly loop: PollingLoop;

  constructor(
    private readonly jobs: ErasureJobs,
    private readonly processor: ErasureProcessor,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.loop = new PollingLoop(this.logger, config.erasures.pollMs, async () => (await this.runOnce()) !== undefined);
  }

  onApplicationBootstrap(): void {
    if (this.config.erasures.runner) this.loop.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.loop.stop();
  }

  /** A job was queued on this instance: look now rather than at the next poll. */
  nudge(): void {
    this.loop.nudge();
  }

  /** Claims and runs one job if there is one (also what tests call on an instance without a loop). */
  async runOnce(): Promise<ErasureEnd | undefined> {
    const job = await this.jobs.claimNext(this.owner);
    if (!job) return undefined;
    const end = await this.processor.run(job, this.owner, () => this.loop.isStopping);
    this.logger.log(`erasure ${job.id}: ${end}`);
    return end;
  }
}
