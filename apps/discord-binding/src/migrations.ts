import { bindingMigrations } from '@tollgate/binding-core';

/** The binding core's tables, then this binding's own (none yet), in order; also run by `npm run migrate`. */
export const MIGRATIONS = bindingMigrations([]);
