import {
  credsAuthenticator,
  usernamePasswordAuthenticator,
  type Authenticator,
} from '@nats-io/nats-core';

/**
 * How a service proves who it is to NATS (docs/protocol.md §5): a user and password, or a NATS
 * credentials file (user JWT + nkey seed), read once at start. Absent means anonymous.
 */
export type NatsCredentials =
  | { readonly kind: 'password'; readonly user: string; readonly password: string }
  | { readonly kind: 'creds'; readonly contents: Uint8Array };

export function natsAuthenticator(credentials: NatsCredentials): Authenticator {
  switch (credentials.kind) {
    case 'password':
      return usernamePasswordAuthenticator(credentials.user, credentials.password);
    case 'creds':
      return credsAuthenticator(credentials.contents);
  }
}

/** What a log line may say about the credentials in use: their kind and user, never a secret. */
export function describeNatsCredentials(credentials: NatsCredentials | undefined): string {
  if (credentials === undefined) return 'anonymous';
  return credentials.kind === 'password' ? `user ${credentials.user}` : 'credentials file';
}
