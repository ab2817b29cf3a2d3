// `npm run migrate` loads each service's list from dist/apps/<service>/migrations.js; the
// session schema's list lives with its read model, which the operator CLI shares.
export { SESSION_SCHEMA_MIGRATIONS as MIGRATIONS } from '@tollgate/session-read-model';
