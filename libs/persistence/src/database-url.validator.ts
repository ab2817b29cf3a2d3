import { redactDatabaseUrl } from './database-url.redactor';

export type DatabaseUrlProblem = 'missing' | 'malformed' | 'unsupported_scheme' | 'missing_host';

export type DatabaseUrlValidation =
  | { ok: true; url: string; redacted: string }
  | { ok: false; code: DatabaseUrlProblem; reason: string };

const SCHEMES = new Set(['postgres:', 'postgresql:']);

/**
 * Checks a DATABASE_URL before anything connects with it, so a typo ends the start with a
 * reason rather than a pool retrying forever. Reasons never quote the input: it may hold
 * a password.
 */
export function validateDatabaseUrl(raw: string | undefined): DatabaseUrlValidation {
  if (raw === undefined || raw.trim() === '') {
    return { ok: false, code: 'missing', reason: 'a postgres:// URL is required' };
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return {
      ok: false,
      code: 'malformed',
      reason: 'is not a URL (expected postgres://user:password@host:5432/database)',
    };
  }
  if (!SCHEMES.has(url.protocol)) {
    return {
      ok: false,
      code: 'unsupported_scheme',
      // The scheme alone is safe to show and usually explains the mistake (mysql:, http:).
      reason: `must start with postgres:// or postgresql://, not ${url.protocol}//`,
    };
  }
  if (url.hostname === '') {
    return {
      ok: false,
      code: 'missing_host',
      reason: 'names no host (expected postgres://user:password@host:5432/database)',
    };
  }
  return { ok: true, url: raw, redacted: redactDatabaseUrl(raw) };
}
