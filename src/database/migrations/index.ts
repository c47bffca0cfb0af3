import { CreateFoundationTables1763800000000 } from './1763800000000-create-foundation-tables.js';
import { CreateMarketingTables1763900000000 } from './1763900000000-create-marketing-tables.js';
import { AddAdminListIndexes1764100000000 } from './1764100000000-add-admin-list-indexes.js';
import { CreateAudienceCustomerDestinationTables1764000000000 } from './1764000000000-create-audience-customer-destination-tables.js';

/** Every migration, in order. Listed explicitly so the bundle needs no file globbing. */
export const MIGRATIONS = [
  CreateFoundationTables1763800000000,
  CreateMarketingTables1763900000000,
  CreateAudienceCustomerDestinationTables1764000000000,
  AddAdminListIndexes1764100000000,
];
