import type { DatabaseUrlProblem } from './database-url.validator';
import type { SchemaNameProblem } from './schema-name.validator';

/** A data source was asked for with a URL or schema that would not be safe to use. */
export class PersistenceConfigError extends Error {
  override readonly name = 'PersistenceConfigError';

  constructor(
    readonly field: 'url' | 'schema',
    readonly code: DatabaseUrlProblem | SchemaNameProblem,
    readonly reason: string,
  ) {
    super(`database ${field} ${reason}`);
  }
}
