import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import type { JetStreamManager } from '@nats-io/jetstream';
import { connectNats, roleInboxPrefix } from '@tollgate/messaging';
import { parseSubjectPrefix, Subjects } from '@tollgate/protocol';
import { readNatsCredentials } from '@tollgate/service-runtime';
import pino from 'pino';
import { CliFailure, UsageError } from './cli-command';

/** NATS as the `operator` user sees it, for the DLQ commands. */
export interface OperatorNats {
  readonly subjects: Subjects;
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  close(): Promise<void>;
}

/** Long enough for a server across a WAN, short enough that a typo'd URL is not a hang. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * Connects as the services do: NATS_URL (comma-separated servers), NATS_USER + NATS_PASSWORD
 * or NATS_CREDS, TOLLGATE_SUBJECT_PREFIX, with the operator role's own inbox, the only one
 * that user may read.
 */
export async function connectOperatorNats(env: NodeJS.ProcessEnv): Promise<OperatorNats> {
  const prefix = parseSubjectPrefix(env.TOLLGATE_SUBJECT_PREFIX || undefined);
  const credentials = readNatsCredentials(env);
  const servers = (env.NATS_URL || 'nats://127.0.0.1:4222')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const problems = [
    ...(prefix.ok ? [] : [`TOLLGATE_SUBJECT_PREFIX: ${prefix.detail}`]),
    ...(credentials.ok ? [] : credentials.problems.map((p) => `${p.variable} ${p.problem}`)),
    ...(servers.length > 0 ? [] : ['NATS_URL: names no server']),
  ];
  if (!prefix.ok || !credentials.ok || servers.length === 0) {
    throw new UsageError(`invalid configuration: ${problems.join('; ')}`);
  }
  let connection: Awaited<ReturnType<typeof connectNats>>;
  try {
    connection = await connectNats({
      servers,
      name: 'tollgate-cli',
      // The CLI's own output says what went wrong; the client's log lines would only repeat it.
      logger: pino({ level: 'silent' }),
      credentials: credentials.credentials,
      inboxPrefix: roleInboxPrefix(prefix.value, 'operator'),
      firstConnectTimeoutMs: CONNECT_TIMEOUT_MS,
    });
  } catch (error) {
    throw new CliFailure(`cannot reach NATS at ${servers.join(',')}: ${messageOf(error)}`);
  }
  try {
    return {
      subjects: new Subjects(prefix.value),
      js: jetstream(connection.nc),
      jsm: await jetstreamManager(connection.nc),
      close: () => connection.close(),
    };
  } catch (error) {
    await connection.close();
    throw new CliFailure(
      `NATS at ${servers.join(',')} has no JetStream for us: ${messageOf(error)}`,
    );
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
