import { Module } from '@nestjs/common';
import { CustomerBatchService } from './bulk/customer-batch.service.js';
import { CustomerUpserts } from './bulk/customer-upserts.js';
import { CustomerBulkController } from './customer-bulk.controller.js';
import { CustomerErasuresController } from './customer-erasures.controller.js';
import { CustomerImportsController } from './customer-imports.controller.js';
import { CustomersController } from './customers.controller.js';
import { CustomersService } from './customers.service.js';
import { CustomerErasuresService } from './erasure/customer-erasures.service.js';
import { ErasureJobs } from './erasure/erasure-jobs.js';
import { ErasureProcessor } from './erasure/erasure-processor.js';
import { ErasureRunner } from './erasure/erasure-runner.js';
import { CustomerExportService } from './export/customer-export.service.js';
import { CustomerImportsService } from './imports/customer-imports.service.js';
import { ImportJobs } from './imports/import-jobs.js';
import { ImportProcessor } from './imports/import-processor.js';
import { ImportRunner } from './imports/import-runner.js';
import { CustomerMergeService } from './merge/customer-merge.service.js';
import { SuppressionsController } from './suppressions.controller.js';
import { SuppressionList } from './suppression/suppression-list.js';
import { SuppressionsService } from './suppression/suppressions.service.js';

/**
 * Customers: the records, batch upserts, CSV import and export, and their lifecycle: merging
 * duplicates, erasure on request, and the suppression list that keeps an erased person out.
 */
@Module({
  controllers: [
    CustomerBulkController,
    CustomerImportsController,
    CustomerErasuresController,
    SuppressionsController,
    CustomersController,
  ],
  providers: [
    CustomersService,
    CustomerBatchService,
    CustomerUpserts,
    CustomerExportService,
    CustomerImportsService,
    ImportJobs,
    ImportProcessor,
    ImportRunner,
    CustomerMergeService,
    SuppressionList,
    SuppressionsService,
    CustomerErasuresService,
    ErasureJobs,
    ErasureProcessor,
    ErasureRunner,
  ],
  exports: [CustomersService, CustomerUpserts],
})
export class CustomerModule {}
