import { ToolGrants1764633600000 } from './grants/tool-grants.migration';
import { SESSION_SERVICE_MIGRATIONS } from './journal/session-journal.migration';

/** Every migration of this service's schema, in order (also run by `npm run migrate`). */
export const MIGRATIONS = [...SESSION_SERVICE_MIGRATIONS, ToolGrants1764633600000];
