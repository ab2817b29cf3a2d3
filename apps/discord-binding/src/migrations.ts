import type { MigrationClass } from '@tollgate/persistence';

/** Every migration of this service's schema, in order (also run by `npm run migrate`). */
export const MIGRATIONS: readonly MigrationClass[] = [];
