/**
 * Config keys holding a secret by name; a `…PUBLIC_KEY` (Discord's Ed25519 verify key) is
 * public by definition. Matching by suffix covers variables added later (NATS credentials,
 * another platform's token) without anyone remembering to list them here.
 */
const SECRET_NAME = /(?:TOKEN|SECRET|PASSWORD|KEY|CREDENTIALS)$/;
const PUBLIC_NAME = /PUBLIC_KEY$/;

// libpq-style query parameters that pg also reads as credentials.
const SECRET_PARAMETERS = ['password', 'sslpassword', 'token'];

/**
 * Every secret value in a service's validated config: the values of secret-named keys, and
 * the credentials inside any URL-valued key (`postgres://user:pass@…`, `nats://user:pass@…`,
 * `?password=`), a comma-separated list of URLs included.
 */
export function configuredSecrets(config: Readonly<Record<string, unknown>>): string[] {
  const secrets = new Set<string>();
  for (const [name, value] of Object.entries(config)) {
    // A list under a secret's name: values a config file drew from the environment.
    if (Array.isArray(value) && SECRET_NAME.test(name)) {
      value
        .filter((v): v is string => typeof v === 'string' && v !== '')
        .forEach((v) => secrets.add(v));
      continue;
    }
    if (typeof value !== 'string' || value === '') continue;
    if (SECRET_NAME.test(name) && !PUBLIC_NAME.test(name)) secrets.add(value);
    for (const part of value.split(',')) {
      for (const credential of urlCredentials(part.trim())) secrets.add(credential);
    }
  }
  return [...secrets];
}

function urlCredentials(raw: string): string[] {
  if (!raw.includes('://')) return [];
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return [];
  }
  const found: string[] = [];
  if (url.password !== '') found.push(url.password, safeDecode(url.password));
  // A lone `nats://token@host` is a token, not a user name.
  else if (url.username !== '') found.push(url.username, safeDecode(url.username));
  for (const name of SECRET_PARAMETERS) {
    const value = url.searchParams.get(name);
    if (value) found.push(value);
  }
  return found;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
