import { CreateFoundationTables1763800000000 } from './1763800000000-create-foundation-tables.js';
import { CreateMarketingTables1763900000000 } from './1763900000000-create-marketing-tables.js';
import { AddAdminListIndexes1764100000000 } from './1764100000000-add-admin-list-indexes.js';
import { AddUsersAccessVersion1764200000000 } from './1764200000000-add-users-access-version.js';
import { AddCampaignsAllocationVersion1764210000000 } from './1764210000000-add-campaigns-allocation-version.js';
import { CreateAudienceCustomerDestinationTables1764000000000 } from './1764000000000-create-audience-customer-destination-tables.js';
import { AddAudienceRuleFields1764400000000 } from './1764400000000-add-audience-rule-fields.js';
import { CreateCustomerImportTables1764500000000 } from './1764500000000-create-customer-import-tables.js';
import { DropDuplicateCustomerEmailIndex1764500000001 } from './1764500000001-drop-duplicate-customer-email-index.js';
import { AddSortKeysAndExactIdentifiers1764600000000 } from './1764600000000-add-sort-keys-and-exact-identifiers.js';
import { CreateIdempotencyKeys1764600000001 } from './1764600000001-create-idempotency-keys.js';
import { AddCampaignsSelectionVersion1764700000000 } from './1764700000000-add-campaigns-selection-version.js';
import { CreateChangeFeedTables1764800000000 } from './1764800000000-create-change-feed-tables.js';
import { CreateWebhookTables1764900000000 } from './1764900000000-create-webhook-tables.js';
import { CreateCustomerLifecycleTables1765000000000 } from './1765000000000-create-customer-lifecycle-tables.js';
import { AddTenantLimitsAndUsage1765100000000 } from './1765100000000-add-tenant-limits-and-usage.js';
import { CreateTenantUsageShares1765200000000 } from './1765200000000-create-tenant-usage-shares.js';
import { CreateCustomerImportLanes1765300000000 } from './1765300000000-create-customer-import-lanes.js';
import { CreateJobs1765400000000 } from './1765400000000-create-jobs.js';
import { AddDestinationDelivery1765600000000 } from './1765600000000-add-destination-delivery.js';
import { CreateCustomerEventTables1765650000000 } from './1765650000000-create-customer-event-tables.js';
import { CreateCampaignRuns1765700000000 } from './1765700000000-create-campaign-runs.js';
import { OrderRunMembersByCustomer1765750000000 } from './1765750000000-order-run-members-by-customer.js';
import { AddCampaignResultsFields1765800000000 } from './1765800000000-add-campaign-results-fields.js';

/** Every migration, in order. Listed explicitly so the bundle needs no file globbing. */
export const MIGRATIONS = [
  CreateFoundationTables1763800000000,
  CreateMarketingTables1763900000000,
  CreateAudienceCustomerDestinationTables1764000000000,
  AddAdminListIndexes1764100000000,
  AddUsersAccessVersion1764200000000,
  AddCampaignsAllocationVersion1764210000000,
  AddAudienceRuleFields1764400000000,
  CreateCustomerImportTables1764500000000,
  DropDuplicateCustomerEmailIndex1764500000001,
  AddSortKeysAndExactIdentifiers1764600000000,
  CreateIdempotencyKeys1764600000001,
  AddCampaignsSelectionVersion1764700000000,
  CreateChangeFeedTables1764800000000,
  CreateWebhookTables1764900000000,
  CreateCustomerLifecycleTables1765000000000,
  AddTenantLimitsAndUsage1765100000000,
  CreateTenantUsageShares1765200000000,
  CreateCustomerImportLanes1765300000000,
  CreateJobs1765400000000,
  AddDestinationDelivery1765600000000,
  CreateCustomerEventTables1765650000000,
  CreateCampaignRuns1765700000000,
  OrderRunMembersByCustomer1765750000000,
  AddCampaignResultsFields1765800000000,
];
