import { APPROVAL_API_MIGRATIONS } from '@tollgate/approval-clients';

/** The approval-api's tables, in order; also run by `npm run migrate` and the clients CLI. */
export const MIGRATIONS = APPROVAL_API_MIGRATIONS;
