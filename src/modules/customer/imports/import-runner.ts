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
  private stopping = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly jobs: ImportJobs,
    private readonly processor: ImportProcessor,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.imports.runner) this.loop = this.work();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
  }

  /** A job was queued on this instance: look now rather than at the next poll. */
  nudge(): void {
    this.wake?.();
  }

  /** Claims and runs one job if there is one (also what tests call on an instance without a loop). */
  async runOnce(): Promise<RunEnd | undefined> {
    const job = await this.jobs.claimNext(this.owner);
    if (!job) return undefined;
    this.logger.log(`import ${job.id}: running from row ${job.processed_rows}`);
    const end = await this.processor.run(job, this.owner, () => this.stopping);
    this.logger.log(`import ${job.id}: ${end}`);
    return end;
  }

  private async work(): Promise<void> {
    while (!this.stopping) {
      let ran: RunEnd | undefined;
      try {
        ran = await this.runOnce();
      } catch (error) {
        this.logger.warn(`import runner: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (!ran && !this.stopping) await this.idle();
    }
  }

  private idle(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, this.config.imports.pollMs);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
