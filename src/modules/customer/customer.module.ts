import { Module } from '@nestjs/common';
import { CustomerBatchService } from './bulk/customer-batch.service.js';
import { CustomerBulkController } from './customer-bulk.controller.js';
import { CustomerErasuresController } from './customer-erasures.controller.js';
import { CustomerImportsController } from './customer-imports.controller.js';
import { CustomersController } from './customers.controller.js';
import { CustomerRules } from './customer-rules.js';
import { CustomersService } from './customers.service.js';
import { CustomerErasuresService } from './erasure/customer-erasures.service.js';
import { ErasureJobs } from './erasure/erasure-jobs.js';
import { ErasureProcessor } from './erasure/erasure-processor.js';
import { ErasureQueue } from './erasure/erasure-queue.js';
import { CustomerExportService } from './export/customer-export.service.js';
import { CustomerImportsService } from './imports/customer-imports.service.js';
import { ImportJobs } from './imports/import-jobs.js';
import { ImportProcessor } from './imports/import-processor.js';
import { ImportQueue } from './imports/import-queue.js';
import { CustomerMergeService } from './merge/customer-merge.service.js';
import { SuppressionsController } from './suppressions.controller.js';
import { SuppressionList } from './suppression/suppression-list.js';
import { SuppressionsService } from './suppression/suppressions.service.js';
import { UnsubscribeController } from './unsubscribe/unsubscribe.controller.js';
import { UnsubscribeService } from './unsubscribe/unsubscribe.service.js';
import { UnsubscribeTokens } from './unsubscribe/unsubscribe-tokens.js';

/**
 * Customers: the records, batch upserts, CSV import and export, and their lifecycle: merging
 * duplicates, erasure on request, and the suppression list that keeps an erased person out; the
 * one-click unsubscribe of e-mail deliveries (unsubscribe/).
 */
@Module({
  controllers: [
    CustomerBulkController,
    CustomerImportsController,
    CustomerErasuresController,
    SuppressionsController,
    UnsubscribeController,
    CustomersController,
  ],
  providers: [
    CustomerRules,
    CustomersService,
    CustomerBatchService,
    CustomerExportService,
    CustomerImportsService,
    ImportJobs,
    ImportProcessor,
    ImportQueue,
    CustomerMergeService,
    SuppressionList,
    SuppressionsService,
    CustomerErasuresService,
    ErasureJobs,
    ErasureProcessor,
    ErasureQueue,
    UnsubscribeTokens,
    UnsubscribeService,
  ],
  exports: [CustomersService, CustomerRules, ImportQueue, ErasureQueue, UnsubscribeTokens],
})
export class CustomerModule {}
