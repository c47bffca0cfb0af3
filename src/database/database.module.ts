import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, type AppConfig } from '../common/config/app-config.js';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source-options.js';
import { serializeTransactionsOnSqlite } from './serialized-transactions.js';
import { BootstrapSeeder } from './seeds/bootstrap.seeder.js';
import { withStartupLock } from './startup-lock.js';

/**
 * The data source; pending migrations run before the application accepts requests, one instance at
 * a time (the start-up lock), so that any number of instances can start together.
 */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        ...dataSourceOptions(config.database),
        migrationsRun: false,
        migrationsTransactionMode: 'each',
        retryAttempts: 0,
      }),
      dataSourceFactory: async (options) => {
        const dataSource = serializeTransactionsOnSqlite(await new DataSource(options!).initialize());
        await withStartupLock(dataSource, () => dataSource.runMigrations({ transaction: 'each' }));
        return dataSource;
      },
    }),
  ],
  providers: [BootstrapSeeder],
})
export class DatabaseModule {}
