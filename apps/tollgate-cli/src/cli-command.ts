import type { ParseArgsConfig } from 'node:util';
import type { SessionDatabase } from './session-database';

/** Exit codes every command keeps to, so scripts can tell a refusal from a failure. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

export interface CliContext {
  readonly io: CliIo;
  /** Opened on first use, so `--help` and usage errors need no database. */
  readonly sessionDatabase: () => Promise<SessionDatabase>;
}

export type CliOptions = NonNullable<ParseArgsConfig['options']>;

export type OptionValues = Record<string, string | boolean | undefined>;

/** One operator command, addressed by its words (`grants list`). */
export interface CliCommand {
  readonly path: readonly string[];
  readonly summary: string;
  /** The whole `--help` text after the usage line. */
  readonly help: string;
  readonly usage: string;
  readonly options: CliOptions;
  run(values: OptionValues, context: CliContext): Promise<number>;
}

/** The operator asked for something the CLI will not do as asked: exit 2, with the reason. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The work could not be done (database unreachable, schema not migrated): exit 1. */
export class CliFailure extends Error {
  override readonly name = 'CliFailure';
}
