import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../common/config/app-config.js';
import { scrubSecret } from '../../common/persistence/database-errors.js';
import { ApiException } from '../../common/http/api-exception.js';
import { JobRunner } from '../../common/jobs/job-runner.js';
import { RateLimitStatus } from '../../common/throttling/rate-limit-status.js';
import { ColumnMetadata } from './entities/column-metadata.entity.js';
import { TableMetadata } from './entities/table-metadata.entity.js';
import { SchemaInspector, type TableInfo } from './schema-inspector.js';
import type { ConnectionStatus, HealthStatus, TableEntry } from './dto/diagnostics.responses.js';

@Injectable()
export class DiagnosticsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly inspector: SchemaInspector,
    private readonly rateLimit: RateLimitStatus,
    private readonly runner: JobRunner,
  ) {}

  /** Connection check for /api/db/test: its failure is a 500 body that names the error, never the password. */
  async connectionStatus(): Promise<ConnectionStatus> {
    const base = { connection: this.inspector.connection, database: this.config.database.name };
    try {
      await this.ping();
      return { ...base, status: 'connected' };
    } catch (error) {
      throw new ApiException(500, {
        code: 500,
        message: 'Database connection failed.',
        data: { ...base, error: this.errorText(error) },
      });
    }
  }

  /**
   * For load balancers: 503 when the database is down (the filter's answer); degraded, still 200,
   * when Redis is, or when a queue's oldest job has waited past its bound.
   */
  async health(): Promise<HealthStatus> {
    await this.ping();
    const counters = this.rateLimit.counters();
    const redis = this.rateLimit.redis();
    const jobs = await this.runner.backlog();
    return {
      status: counters === 'degraded' || redis === 'down' || jobs.late.length ? 'degraded' : 'ok',
      database: 'up',
      redis,
      rate_limit_counters: counters,
      jobs: jobs.queues,
    };
  }

  async ping(): Promise<void> {
    await this.dataSource.query('SELECT 1');
  }

  async tables(): Promise<TableEntry[]> {
    return (await this.inspector.tables()).map((table) => toEntry(table));
  }

  async schema(): Promise<TableEntry[]> {
    try {
      const [tables, tableRows, columnRows] = await Promise.all([
        this.inspector.tables(),
        this.dataSource.getRepository(TableMetadata).find(),
        this.dataSource.getRepository(ColumnMetadata).find(),
      ]);
      const tableMeta = new Map(tableRows.map((t) => [t.table_name, t]));
      const columnMeta = new Map(columnRows.map((c) => [`${c.table_name}.${c.column_name}`, c]));
      return tables.map((table) =>
        toEntry(table, tableMeta.get(table.table_name), (name) => columnMeta.get(`${table.table_name}.${name}`)),
      );
    } catch (error) {
      throw new ApiException(500, {
        code: 500,
        message: 'Failed to retrieve database schema.',
        data: { error: this.errorText(error) },
      });
    }
  }

  private errorText(error: unknown): string {
    const text = error instanceof Error ? error.message : String(error);
    return scrubSecret(text, this.config.database.password);
  }
}

function toEntry(
  table: TableInfo,
  meta?: TableMetadata,
  columnMeta: (name: string) => ColumnMetadata | undefined = () => undefined,
): TableEntry {
  return {
    table_name: table.table_name,
    table_display_name: meta?.display_name ?? null,
    info: meta?.info ?? null,
    fields: table.columns.map((column) => {
      const m = columnMeta(column.name);
      return {
        name: column.name,
        display_name: m?.display_name ?? null,
        db_type: column.db_type,
        app_type: m?.app_type ?? null,
        nullable: column.nullable,
        default: column.default,
        auto_incrementing: column.auto_incrementing,
        info: m?.info ?? null,
      };
    }),
  };
}
