import { ToolGrants1764633600000 } from './grants/tool-grants.migration';
import { ToolGrantsPerClient1796083200000 } from './grants/tool-grants-per-client.migration';
import { ToolGrantsPerPerson1795998600000 } from './grants/tool-grants-per-person.migration';
import { SessionGrants1796169600000 } from './grants/session-grants.migration';
import { SESSION_SERVICE_MIGRATIONS } from './journal/session-journal.migration';

/** Every migration of this service's schema, in order (also run by `npm run migrate`). */
export const MIGRATIONS = [
  ...SESSION_SERVICE_MIGRATIONS,
  ToolGrants1764633600000,
  ToolGrantsPerPerson1795998600000,
  ToolGrantsPerClient1796083200000,
  SessionGrants1796169600000,
];
