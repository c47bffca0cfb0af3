import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { wholeSecondNow } from '../../common/persistence/columns.js';
import { appTypeOf, displayNameOf } from './metadata/derive-labels.js';
import { TABLE_DESCRIPTIONS } from './metadata/table-descriptions.js';
import { withStartupLock } from '../../database/startup-lock.js';
import { ColumnMetadata } from './entities/column-metadata.entity.js';
import { TableMetadata } from './entities/table-metadata.entity.js';
import { SchemaInspector } from './schema-inspector.js';

/**
 * Fills `table_metadata` / `column_metadata` for tables and columns that have no row yet,
 * at start-up, once migrations have run. Rows already there (possibly edited) are kept.
 */
@Injectable()
export class MetadataSeeder implements OnApplicationBootstrap {
  private readonly logger = new Logger(MetadataSeeder.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly inspector: SchemaInspector,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await withStartupLock(this.dataSource, () => this.seed());
  }

  private async seed(): Promise<void> {
    const tables = await this.inspector.tables();
    await this.dataSource.transaction(async (manager) => {
      const knownTables = new Set(
        (await manager.find(TableMetadata, { select: { table_name: true } })).map((t) => t.table_name),
      );
      const knownColumns = new Set(
        (await manager.find(ColumnMetadata, { select: { table_name: true, column_name: true } })).map(
          (c) => `${c.table_name}.${c.column_name}`,
        ),
      );
      const now = wholeSecondNow();
      const newTables: Partial<TableMetadata>[] = [];
      const newColumns: Partial<ColumnMetadata>[] = [];
      for (const table of tables) {
        const description = TABLE_DESCRIPTIONS[table.table_name];
        if (!knownTables.has(table.table_name)) {
          newTables.push({
            table_name: table.table_name,
            display_name: description?.display_name ?? displayNameOf(table.table_name),
            app_type: description?.app_type ?? 'table',
            info: description?.info ?? null,
            created_at: now,
            updated_at: now,
          });
        }
        for (const column of table.columns) {
          if (knownColumns.has(`${table.table_name}.${column.name}`)) continue;
          const override = description?.columns?.[column.name] ?? {};
          newColumns.push({
            table_name: table.table_name,
            column_name: column.name,
            display_name: override.display_name ?? displayNameOf(column.name),
            app_type: override.app_type ?? appTypeOf(column),
            info: override.info ?? null,
            created_at: now,
            updated_at: now,
          });
        }
      }
      if (newTables.length)
        await manager.save(
          TableMetadata,
          newTables.map((t) => manager.create(TableMetadata, t)),
          { chunk: 200 },
        );
      if (newColumns.length)
        await manager.save(
          ColumnMetadata,
          newColumns.map((c) => manager.create(ColumnMetadata, c)),
          { chunk: 200 },
        );
      if (newTables.length || newColumns.length) {
        this.logger.log(`schema metadata seeded: ${newTables.length} tables, ${newColumns.length} columns`);
      }
    });
  }
}
