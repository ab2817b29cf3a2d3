import { readFileSync } from 'node:fs';
import { MIN_NATS_PASSWORD_LENGTH, type NatsCredentials } from '@tollgate/messaging';

export interface ConfigProblem {
  readonly variable: string;
  readonly problem: string;
}

export type NatsCredentialsResult =
  | { readonly ok: true; readonly credentials: NatsCredentials | undefined }
  | { readonly ok: false; readonly problems: readonly ConfigProblem[] };

// Both blocks nats-server's `nsc generate creds` writes; without them the client would only
// fail later, inside its reconnect loop, where nobody reads the reason.
const CREDS_JWT = /-----BEGIN NATS USER JWT-----\s*\S+\s*------END NATS USER JWT------/;
const CREDS_SEED = /-----BEGIN USER NKEY SEED-----\s*SU[A-Z2-7]+\s*------END USER NKEY SEED------/;

/**
 * NATS_USER + NATS_PASSWORD, or NATS_CREDS (a credentials file), or neither for an anonymous
 * connection (docs/protocol.md §5). A password shorter than the generator's minimum is refused:
 * it is a placeholder or a typo, never one `nats:config --passwords` made. An empty one counts
 * as unset, so NATS_USER alone is refused too. Shared by the services and the operator scripts. Problems name
 * the variable and never quote a value: the password, and even the file's path, stay out of
 * the message.
 */
export function readNatsCredentials(env: NodeJS.ProcessEnv): NatsCredentialsResult {
  const set = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value === '' ? undefined : value;
  };
  const user = set('NATS_USER');
  const password = set('NATS_PASSWORD');
  const credsFile = set('NATS_CREDS');
  if (credsFile !== undefined) {
    if (user !== undefined || password !== undefined) {
      return refused('NATS_CREDS', 'cannot be combined with NATS_USER or NATS_PASSWORD');
    }
    let contents: Buffer;
    try {
      contents = readFileSync(credsFile);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
      return refused('NATS_CREDS', `cannot be read (${code})`);
    }
    const text = contents.toString('utf8');
    if (!CREDS_JWT.test(text) || !CREDS_SEED.test(text)) {
      return refused('NATS_CREDS', 'is not a NATS credentials file (a user JWT and an nkey seed)');
    }
    return { ok: true, credentials: { kind: 'creds', contents: new Uint8Array(contents) } };
  }
  if (user !== undefined && password === undefined) {
    return refused('NATS_PASSWORD', 'is required when NATS_USER is set');
  }
  if (password !== undefined && user === undefined) {
    return refused('NATS_USER', 'is required when NATS_PASSWORD is set');
  }
  if (user !== undefined && password !== undefined) {
    if (password.length < MIN_NATS_PASSWORD_LENGTH) {
      return refused(
        'NATS_PASSWORD',
        `must be at least ${MIN_NATS_PASSWORD_LENGTH} characters (\`npm run nats:config -- --passwords\` prints safe ones)`,
      );
    }
    return { ok: true, credentials: { kind: 'password', user, password } };
  }
  return { ok: true, credentials: undefined };
}

function refused(variable: string, problem: string): NatsCredentialsResult {
  return { ok: false, problems: [{ variable, problem }] };
}
