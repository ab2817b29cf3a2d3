import { parseArgs } from 'node:util';
import {
  type CliCommand,
  type CliContext,
  CliFailure,
  type CliIo,
  EXIT,
  type OptionValues,
  UsageError,
} from './cli-command';
import {
  CLIENTS_CREATE,
  CLIENTS_LIST,
  CLIENTS_REVOKE,
  CLIENTS_ROTATE,
  CLIENTS_UPDATE,
} from './clients/clients.commands';
import { AUDIT_EXPORT } from './audit/audit-export.command';
import { AUDIT_PRUNE } from './audit/audit-prune.command';
import { AUDIT_VERIFY } from './audit/audit-verify.command';
import { DLQ_LIST } from './dlq/dlq-list.command';
import { DLQ_REPLAY } from './dlq/dlq-replay.command';
import { DLQ_SHOW } from './dlq/dlq-show.command';
import { GRANTS_LIST } from './grants/grants-list.command';
import { GRANTS_REVOKE } from './grants/grants-revoke.command';
import type { OperatorNats } from './operator-nats';
import { PENDING } from './pending/pending.command';
import { openSessionDatabase, type SessionDatabase } from './session-database';
import { SESSIONS_SHOW } from './sessions/sessions-show.command';

const PROGRAM = 'npm run tollgate --';

/** Every command the CLI knows; a new one is a file and a line here. */
export const COMMANDS: readonly CliCommand[] = [
  GRANTS_LIST,
  GRANTS_REVOKE,
  PENDING,
  SESSIONS_SHOW,
  DLQ_LIST,
  DLQ_SHOW,
  DLQ_REPLAY,
  CLIENTS_CREATE,
  CLIENTS_LIST,
  CLIENTS_UPDATE,
  CLIENTS_REVOKE,
  CLIENTS_ROTATE,
  AUDIT_EXPORT,
  AUDIT_VERIFY,
  AUDIT_PRUNE,
];

/**
 * Runs one command line and returns the exit code. Nothing here exits the process, so the
 * database is always closed and every line printed before `main` sets the code.
 */
export async function runCli(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  io: CliIo,
): Promise<number> {
  const firstOption = argv.findIndex((a) => a.startsWith('-'));
  const words = firstOption === -1 ? [...argv] : argv.slice(0, firstOption);
  const rest = argv.slice(words.length);
  const wantsHelp = rest.includes('--help') || rest.includes('-h');
  if (words[0] === 'help') return showHelp(words.slice(1), io);

  const command =
    COMMANDS.find((c) => sameWords(c.path, words)) ??
    COMMANDS.find((c) => c.operands !== undefined && leadsWith(c.path, words));
  if (!command) {
    if (words.length === 0 && wantsHelp) return showHelp([], io);
    if (isGroup(words) && (wantsHelp || rest.length === 0)) {
      if (wantsHelp) return showHelp(words, io);
      io.err(groupHelp(words));
      return EXIT.usage;
    }
    io.err(
      words.length === 0
        ? topHelp()
        : `tollgate: unknown command "${words.join(' ')}"; run \`${PROGRAM} --help\``,
    );
    return EXIT.usage;
  }
  if (wantsHelp) return showHelp(command.path, io);

  const opened: { database?: Promise<SessionDatabase>; nats?: Promise<OperatorNats> } = {};
  const context: CliContext = {
    io,
    env,
    sessionDatabase: () => (opened.database ??= openSessionDatabase(env)),
    // Loaded only by the commands that use NATS, so the others start without its client.
    nats: () => (opened.nats ??= import('./operator-nats').then((m) => m.connectOperatorNats(env))),
  };
  try {
    const operands = words.slice(command.path.length);
    const { min, max } = command.operands ?? { min: 0, max: 0 };
    if (operands.length > max) {
      throw new UsageError(`unexpected argument "${operands[max]}"`);
    }
    const values = parseOptions(command, rest);
    if (operands.length < min) throw new UsageError(`expected: ${command.usage}`);
    return await command.run(values, context, operands);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`tollgate ${command.path.join(' ')}: ${error.message}`);
      io.err(`run \`${PROGRAM} ${command.path.join(' ')} --help\` for its options`);
      return EXIT.usage;
    }
    if (error instanceof CliFailure) {
      io.err(`tollgate ${command.path.join(' ')}: ${error.message}`);
      return EXIT.failed;
    }
    io.err(
      `tollgate ${command.path.join(' ')}: failed: ${error instanceof Error ? error.message : String(error)}`,
    );
    return EXIT.failed;
  } finally {
    await Promise.all([
      opened.database?.then((d) => d.close()).catch(() => undefined),
      opened.nats?.then((n) => n.close()).catch(() => undefined),
    ]);
  }
}

function parseOptions(command: CliCommand, args: readonly string[]): OptionValues {
  try {
    return parseArgs({
      args: [...args],
      options: command.options,
      strict: true,
      allowPositionals: false,
    }).values as OptionValues;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

function showHelp(words: readonly string[], io: CliIo): number {
  const command = COMMANDS.find((c) => sameWords(c.path, words));
  if (command) {
    io.out(`Usage: ${PROGRAM} ${command.path.join(' ')} ${command.usage}\n\n${command.help}`);
    return EXIT.ok;
  }
  if (words.length === 0) {
    io.out(topHelp());
    return EXIT.ok;
  }
  if (isGroup(words)) {
    io.out(groupHelp(words));
    return EXIT.ok;
  }
  io.err(`tollgate: unknown command "${words.join(' ')}"; run \`${PROGRAM} --help\``);
  return EXIT.usage;
}

function topHelp(): string {
  return [
    `Usage: ${PROGRAM} <command> [options]`,
    '',
    "Tollgate's operator commands. grants, pending, sessions and audit work on the session-service's",
    "database (pending also reads the bindings' schemas in it):",
    '  DATABASE_URL     required, postgres://user:password@host:5432/database',
    '  DATABASE_SCHEMA  default session_service',
    'dlq works on NATS as the services connect to it:',
    '  NATS_URL         default nats://127.0.0.1:4222 (comma-separated for a cluster)',
    '  NATS_USER + NATS_PASSWORD, or NATS_CREDS: the `operator` user of `npm run nats:config`',
    '  TOLLGATE_SUBJECT_PREFIX  default tollgate',
    "clients works on the approval-api's schema: DATABASE_URL, DATABASE_SCHEMA default approval_api",
    '',
    'Commands:',
    commandList(COMMANDS),
    '',
    `Run \`${PROGRAM} <command> --help\` for a command's options.`,
    'Exit codes: 0 done, 1 failed (database or NATS unreachable, schema not migrated),',
    '2 usage or configuration error (nothing was changed).',
  ].join('\n');
}

function groupHelp(words: readonly string[]): string {
  return [
    `Usage: ${PROGRAM} ${words.join(' ')} <command> [options]`,
    '',
    'Commands:',
    commandList(COMMANDS.filter((c) => startsWith(c.path, words))),
  ].join('\n');
}

function commandList(commands: readonly CliCommand[]): string {
  const width = Math.max(...commands.map((c) => c.path.join(' ').length));
  return commands.map((c) => `  ${c.path.join(' ').padEnd(width)}  ${c.summary}`).join('\n');
}

function isGroup(words: readonly string[]): boolean {
  return words.length > 0 && COMMANDS.some((c) => startsWith(c.path, words));
}

function startsWith(path: readonly string[], words: readonly string[]): boolean {
  return words.length < path.length && words.every((w, i) => path[i] === w);
}

/** `dlq show 42`: the command's words, then its operands. */
function leadsWith(path: readonly string[], words: readonly string[]): boolean {
  return words.length > path.length && path.every((w, i) => words[i] === w);
}

function sameWords(path: readonly string[], words: readonly string[]): boolean {
  return path.length === words.length && path.every((w, i) => words[i] === w);
}
