const REDACTED = '***';

// libpq-style query parameters that pg also reads as credentials.
const SECRET_PARAMETERS = ['password', 'sslpassword'];

/**
 * The URL with every credential replaced by `***`, safe for logs and error text. Input
 * that does not parse is not echoed at all: it may be a password pasted in the wrong place.
 */
export function redactDatabaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return '<unparseable database URL>';
  }
  if (url.password !== '') url.password = REDACTED;
  for (const name of SECRET_PARAMETERS) {
    if (url.searchParams.has(name)) url.searchParams.set(name, REDACTED);
  }
  return url.toString();
}
