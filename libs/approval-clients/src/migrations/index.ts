import type { MigrationClass } from '@tollgate/persistence';
import { ApprovalApiSchema1764806400000 } from './approval-api-schema.migration';
import { ApprovalsUnpublishedColumn1764810000000 } from './approvals-unpublished-column.migration';

/**
 * The approval-api's migrations, in order. Here rather than in the app because the operator
 * CLI creates clients in the same schema, possibly before the service first starts.
 */
export const APPROVAL_API_MIGRATIONS: readonly MigrationClass[] = [
  ApprovalApiSchema1764806400000,
  ApprovalsUnpublishedColumn1764810000000,
];
