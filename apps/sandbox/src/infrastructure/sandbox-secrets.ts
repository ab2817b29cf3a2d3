import { chmod, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { NATS_ROLES, type NatsRole, randomNatsPassword } from '@tollgate/messaging';
import { StartupFailure } from './startup-failure';

/**
 * The passwords of the sandbox's own NATS users and PostgreSQL superuser. Kept (not drawn
 * afresh every start) because the PostgreSQL one lives on inside the data directory; one file,
 * owner-only, so the operator user also works with the nats CLI between runs.
 */
export interface SandboxSecrets {
  readonly nats: Readonly<Record<NatsRole, string>>;
  readonly postgres: string;
  /** True when the PostgreSQL password was drawn by this start: it must be set in the cluster. */
  readonly postgresIsNew: boolean;
}

export const SECRETS_FILE = 'secrets.json';

export async function loadSandboxSecrets(dataDir: string): Promise<SandboxSecrets> {
  const path = join(dataDir, SECRETS_FILE);
  const stored = await readStored(path);
  const nats = Object.fromEntries(
    NATS_ROLES.map((role) => [role, validOrNew(stored.nats?.[role])]),
  ) as Record<NatsRole, string>;
  const postgresIsNew = !isSafe(stored.postgres);
  const postgres = postgresIsNew ? randomNatsPassword() : stored.postgres!;
  const text = `${JSON.stringify({ nats, postgres }, null, 2)}\n`;
  const temporary = `${path}.${process.pid}`;
  await writeFile(temporary, text, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, path);
  return { nats, postgres, postgresIsNew };
}

interface Stored {
  nats?: Partial<Record<string, unknown>>;
  postgres?: string;
}

async function readStored(path: string): Promise<Stored> {
  const text = await readFile(path, 'utf8').catch(() => undefined);
  if (text === undefined) return {};
  try {
    const parsed = JSON.parse(text) as unknown;
    return typeof parsed === 'object' && parsed !== null ? parsed : {};
  } catch {
    throw new StartupFailure(
      `${path} is not JSON: delete it to draw new passwords (PostgreSQL's is then reset too)`,
    );
  }
}

function isSafe(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z][A-Za-z0-9]{23,127}$/.test(value);
}

function validOrNew(value: unknown): string {
  return isSafe(value) ? value : randomNatsPassword();
}
