export type SchemaNameProblem = 'missing' | 'invalid' | 'reserved';

export type SchemaNameValidation =
  { ok: true; schema: string } | { ok: false; code: SchemaNameProblem; reason: string };

// Lower case only, so the name means the same quoted or unquoted, and at most 63 bytes
// (NAMEDATALEN - 1), beyond which PostgreSQL silently truncates and two services could
// end up sharing a schema. The name is also interpolated into DDL, so nothing else passes.
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export function validateSchemaName(raw: string | undefined): SchemaNameValidation {
  if (raw === undefined || raw === '') {
    return { ok: false, code: 'missing', reason: 'a schema name is required' };
  }
  if (!SCHEMA_NAME.test(raw)) {
    return {
      ok: false,
      code: 'invalid',
      reason:
        'must start with a lower-case letter or _ and hold only lower-case letters, digits and _ (at most 63)',
    };
  }
  // PostgreSQL refuses CREATE SCHEMA for pg_* ("unacceptable schema name"); saying so here
  // turns a failed migration at start into a configuration error naming the variable.
  if (raw.startsWith('pg_')) {
    return { ok: false, code: 'reserved', reason: 'names beginning with pg_ are reserved' };
  }
  return { ok: true, schema: raw };
}
