import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from './base-config';
import { ConfigError } from './config-error';
import { readNatsCredentials } from './nats-credentials.config';

const valid = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' };
// The shape `nsc generate creds` writes; the client checks the signature, not this reader.
const CREDS = `-----BEGIN NATS USER JWT-----
eyJ0eXAiOiJKV1QiLCJhbGciOiJlZDI1NTE5LW5rZXkifQ.eyJzdWIiOiJVQUJDIn0.c2lnbmF0dXJl
------END NATS USER JWT------

************************* IMPORTANT *************************
NKEY Seed printed below can be used to sign and prove identity.

-----BEGIN USER NKEY SEED-----
SUAIBDPBAUTWCWBKIO6XHQNINK5FWJW4OHLXC3HQ2KFE4PEJUA44CNHTC4
------END USER NKEY SEED------
`;

function failureOf(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig('slack-binding', { ...valid, ...env }, {});
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('NATS credentials in the config', () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-creds-'));
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('connects anonymously when neither form is set, or both are empty', () => {
    expect(loadConfig('slack-binding', valid, {}).natsCredentials).toBeUndefined();
    expect(
      loadConfig(
        'slack-binding',
        { ...valid, NATS_USER: '', NATS_PASSWORD: '', NATS_CREDS: '' },
        {},
      ).natsCredentials,
    ).toBeUndefined();
  });

  it('takes a user and password', () => {
    const config = loadConfig(
      'slack-binding',
      { ...valid, NATS_USER: 'slack-binding', NATS_PASSWORD: 's3cret-pw-of-twenty-four-chars' },
      {},
    );
    expect(config.natsCredentials).toEqual({
      kind: 'password',
      user: 'slack-binding',
      password: 's3cret-pw-of-twenty-four-chars',
    });
  });

  it('takes a credentials file and keeps its contents', () => {
    const file = join(dir, 'ok.creds');
    writeFileSync(file, CREDS);
    const config = loadConfig('slack-binding', { ...valid, NATS_CREDS: file }, {});
    expect(config.natsCredentials?.kind).toBe('creds');
    expect(
      config.natsCredentials?.kind === 'creds' &&
        Buffer.from(config.natsCredentials.contents).toString(),
    ).toBe(CREDS);
  });

  it.each([
    ['a user without a password', { NATS_USER: 'slack-binding' }, 'NATS_PASSWORD'],
    ['a password without a user', { NATS_PASSWORD: 'hunter2-pw' }, 'NATS_USER'],
    [
      'both forms at once',
      { NATS_USER: 'slack-binding', NATS_PASSWORD: 'hunter2-pw', NATS_CREDS: '/etc/x.creds' },
      'NATS_CREDS',
    ],
    [
      'a password shorter than 24 characters',
      { NATS_USER: 'slack-binding', NATS_PASSWORD: 'hunter2-pw' },
      'NATS_PASSWORD',
    ],
    [
      'a credentials file that does not exist',
      { NATS_CREDS: '/nonexistent/hunter2.creds' },
      'NATS_CREDS',
    ],
  ])('refuses %s, naming %s and echoing no value', (_case, env, variable) => {
    const error = failureOf(env);
    expect(error.problems.map((p) => p.variable)).toEqual([variable]);
    expect(error.message).not.toContain('hunter2');
    expect(error.message).not.toContain('/etc/x.creds');
  });

  it('refuses a credentials path that cannot be read as a file', () => {
    // A directory, so the refusal does not depend on who runs the test (root reads any file).
    expect(failureOf({ NATS_CREDS: dir }).problems).toEqual([
      { variable: 'NATS_CREDS', problem: 'cannot be read (EISDIR)' },
    ]);
  });

  it('refuses a file that is not a credentials file, without quoting it', () => {
    const file = join(dir, 'password.txt');
    writeFileSync(file, 'hunter2-in-a-file\n');
    const error = failureOf({ NATS_CREDS: file });
    expect(error.problems.map((p) => p.variable)).toEqual(['NATS_CREDS']);
    expect(error.message).not.toContain('hunter2');
    expect(error.message).not.toContain(file);
  });

  it('reports a credentials problem together with the other bad variables', () => {
    const error = failureOf({ NATS_USER: 'slack-binding', PORT: 'eighty' });
    expect(error.problems.map((p) => p.variable).sort()).toEqual(['NATS_PASSWORD', 'PORT']);
  });

  it('is usable without a service config, as the operator scripts do', () => {
    expect(
      readNatsCredentials({ NATS_USER: 'operator', NATS_PASSWORD: 'OperatorPasswordOf24Chars' }),
    ).toEqual({
      ok: true,
      credentials: { kind: 'password', user: 'operator', password: 'OperatorPasswordOf24Chars' },
    });
  });
});
