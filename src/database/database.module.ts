import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ActivityLogSubscriber } from '../common/activity/activity-log.subscriber.js';
import { APP_CONFIG, type AppConfig } from '../common/config/app-config.js';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source-options.js';
import { serializeTransactionsOnSqlite } from './serialized-transactions.js';
import { BootstrapSeeder } from './seeds/bootstrap.seeder.js';

/** The data source; pending migrations run before the application accepts requests. */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        ...dataSourceOptions(config.database),
        migrationsRun: true,
        migrationsTransactionMode: 'each',
        retryAttempts: 0,
      }),
      dataSourceFactory: async (options) => serializeTransactionsOnSqlite(await new DataSource(options!).initialize()),
    }),
  ],
  providers: [BootstrapSeeder, ActivityLogSubscriber],
})
export class DatabaseModule {}
