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
import { ImportJobs } from './import-jobs.js';
import { ImportProcessor, type RunEnd } from './import-processor.js';

/**
 * The import runner of this instance: started with the application, it claims one job at a time
 * (a lease, see ImportJobs) and runs it; idle, it looks again every `pollMs`. On shutdown it lets
 * the current chunk commit, gives the job back and returns, well within the 10 s of a SIGTERM;
 * after a crash the lease runs out and any instance resumes the job.
 */
@Injectable()
export class ImportRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  /** This instance, as `lease_owner`. */
  readonly owner = `${hostname().slice(0, 40)}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly logger = new Logger('CustomerImports');
  private readonly loop: PollingLoop;

  constructor(
    private readonly jobs: ImportJobs,
    private readonly processor: ImportProcessor,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.loop = new PollingLoop(this.logger, config.imports.pollMs, async () => (await this.runOnce()) !== undefined);
  }

  onApplicationBootstrap(): void {
    if (this.config.imports.runner) this.loop.start();
  }

  beforeApplicationShutdown(): Promise<void> {
    return this.loop.stop();
  }

  /** A job was queued on this instance: look now rather than at the next poll. */
  nudge(): void {
    this.loop.nudge();
  }

  /** Claims and runs one job if there is one (also what tests call on an instance without a loop). */
  async runOnce(): Promise<RunEnd | undefined> {
    const job = await this.jobs.claimNext(this.owner);
    if (!job) return undefined;
    this.logger.log(`import ${job.id}: running from row ${job.processed_rows}`);
    const end = await this.processor.run(job, this.owner, () => this.loop.isStopping);
    this.logger.log(`import ${job.id}: ${end}`);
    return end;
  }
}
