import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadConfig } from './src/common/config/app-config.js';
import { dataSourceOptions } from './src/database/data-source-options.js';

/** Data source for the TypeORM CLI (`npm run migration:run`); the app builds the same options. */
export default new DataSource(dataSourceOptions(loadConfig().database));
