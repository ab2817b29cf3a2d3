import type { ParseArgsConfig } from 'node:util';
import type { OperatorNats } from './operator-nats';
import type { SessionDatabase } from './session-database';

/** Exit codes every command keeps to, so scripts can tell a refusal from a failure. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  /**
   * Resolves once `out` has room again (at once when it has), rejects with a CliFailure when
   * the output is gone. A command printing without bound awaits it between lines: stdout to a
   * pipe queues in memory whatever its reader has not taken yet.
   */
  writable(): Promise<void>;
  /**
   * Asks the person at the terminal a yes/no question; undefined when there is no terminal
   * to ask on (a script, a pipe), which a command must take as "no".
   */
  confirm?(question: string): Promise<boolean | undefined>;
}

export interface CliContext {
  readonly io: CliIo;
  readonly env: NodeJS.ProcessEnv;
  /** Opened on first use, so `--help` and usage errors need no database. */
  readonly sessionDatabase: () => Promise<SessionDatabase>;
  /** Connected on first use, as the `operator` NATS user; only the DLQ commands need it. */
  readonly nats: () => Promise<OperatorNats>;
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
  /** The words after the command's own (`dlq show 42`); absent: none are taken. */
  readonly operands?: { readonly min: number; readonly max: number };
  run(values: OptionValues, context: CliContext, operands: readonly string[]): Promise<number>;
}

/** The operator asked for something the CLI will not do as asked: exit 2, with the reason. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The work could not be done (database unreachable, schema not migrated): exit 1. */
export class CliFailure extends Error {
  override readonly name = 'CliFailure';
}
