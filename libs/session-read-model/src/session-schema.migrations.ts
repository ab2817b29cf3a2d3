import { SessionGrants1796169600000 } from './migrations/session-grants.migration';
import { SESSION_SERVICE_MIGRATIONS } from './migrations/session-journal.migration';
import { ToolGrantsPerClient1796083200000 } from './migrations/tool-grants-per-client.migration';
import { ToolGrantsPerPerson1795998600000 } from './migrations/tool-grants-per-person.migration';
import { ToolGrants1764633600000 } from './migrations/tool-grants.migration';
import { ToolGrantsScoped1796343000000 } from './migrations/tool-grants-scoped.migration';
import { GrantEndsAudited1796344000000 } from './migrations/grant-ends-audited.migration';

/**
 * Every migration of the session-service's schema, in order: the service runs them at start
 * and `npm run migrate` runs them too; the operator CLI compares the schema with them and
 * refuses a schema behind the build, never migrating itself.
 */
export const SESSION_SCHEMA_MIGRATIONS = [
  ...SESSION_SERVICE_MIGRATIONS,
  ToolGrants1764633600000,
  ToolGrantsPerPerson1795998600000,
  ToolGrantsPerClient1796083200000,
  SessionGrants1796169600000,
  ToolGrantsScoped1796343000000,
  GrantEndsAudited1796344000000,
];
