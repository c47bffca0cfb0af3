import { Module } from '@nestjs/common';
import { CustomerBatchService } from './bulk/customer-batch.service.js';
import { CustomerBulkController } from './customer-bulk.controller.js';
import { CustomerImportsController } from './customer-imports.controller.js';
import { CustomersController } from './customers.controller.js';
import { CustomersService } from './customers.service.js';
import { CustomerExportService } from './export/customer-export.service.js';
import { CustomerImportsService } from './imports/customer-imports.service.js';
import { ImportJobs } from './imports/import-jobs.js';
import { ImportProcessor } from './imports/import-processor.js';
import { ImportRunner } from './imports/import-runner.js';

@Module({
  controllers: [CustomerBulkController, CustomerImportsController, CustomersController],
  providers: [
    CustomersService,
    CustomerBatchService,
    CustomerExportService,
    CustomerImportsService,
    ImportJobs,
    ImportProcessor,
    ImportRunner,
  ],
  exports: [CustomersService],
})
export class CustomerModule {}
