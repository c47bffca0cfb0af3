import { CreateFoundationTables1763800000000 } from './1763800000000-create-foundation-tables.js';

/** Every migration, in order. Listed explicitly so the bundle needs no file globbing. */
export const MIGRATIONS = [CreateFoundationTables1763800000000];
