import { type ChildProcess, spawn } from 'node:child_process';
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  openSync,
  readFileSync,
  statSync,
} from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { type NatsRole, passwordVariable, renderNatsServerConfig } from '@tollgate/messaging';
import { answers, freePort, isAlive, pollUntil } from './local-ports';
import type { GroupStarted } from './process-group.records';
import { StartupFailure } from './startup-failure';

/** How many ports a start tries when the one picked free was taken before nats-server bound it. */
const PORT_ATTEMPTS = 5;

/** Shown when there is no NATS to use and none to start: the one thing to do next. */
export const NATS_MISSING = [
  'npm start needs NATS with JetStream: NATS_URL is not set (or nothing answers there), and',
  'there is no nats-server on PATH or in /usr/sbin. Install it, then run npm start again:',
  '  Debian/Ubuntu:  sudo apt-get install -y nats-server',
  '  macOS:          brew install nats-server',
  '  Docker:         docker run -d --name tollgate-nats -p 127.0.0.1:4222:4222 nats:2 -js',
  '                  and start with NATS_URL=nats://127.0.0.1:4222 npm start',
].join('\n');

/**
 * The users of a nats-server the sandbox runs itself, as production has them
 * (`npm run nats:config`): one per service and `operator`, anonymous connections refused.
 */
export interface OwnNatsUsers {
  readonly prefix: string;
  /** The services that get a user; `operator` always does. */
  readonly roles: readonly NatsRole[];
  readonly passwords: Readonly<Record<NatsRole, string>>;
  /** Where the rendered configuration is written (it references the passwords, holds none). */
  readonly configFile: string;
}

export interface NatsEndpoint {
  readonly url: string;
  /** Set when npm start runs the server itself (and stops it last). */
  stop(): Promise<void>;
  readonly own: boolean;
}

/** `NATS_URL` when something answers there, else a nats-server of our own on a free port. */
export async function provideNats(
  natsUrl: string | undefined,
  dataDir: string,
  logFile: string,
  progress: (line: string) => void,
  users: OwnNatsUsers,
  searchDirs: readonly string[] = defaultSearchDirs(),
  pickPort: () => Promise<number> = freePort,
  started: GroupStarted = () => undefined,
): Promise<NatsEndpoint> {
  if (natsUrl) {
    const first = new URL(natsUrl.split(',')[0].trim());
    if (await answers(first.hostname, Number(first.port || 4222))) {
      progress(`NATS: using NATS_URL (${first.host})`);
      return { url: natsUrl, own: false, stop: async () => undefined };
    }
    progress(`NATS: nothing answers at NATS_URL (${first.host}); starting nats-server`);
  }
  const binary = findNatsServer(searchDirs);
  if (!binary) throw new StartupFailure(NATS_MISSING);
  return OwnNatsServer.start(binary, dataDir, logFile, progress, users, pickPort, started);
}

/** PATH, then where Debian's package puts it (/usr/sbin is not on a normal user's PATH). */
function defaultSearchDirs(): string[] {
  return [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin'];
}

function findNatsServer(dirs: readonly string[]): string | undefined {
  for (const dir of dirs.filter(Boolean)) {
    const candidate = join(dir, 'nats-server');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

class OwnNatsServer implements NatsEndpoint {
  readonly own = true;
  private exited!: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    private readonly pidFile: string,
    readonly url: string,
  ) {
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
  }

  static async start(
    binary: string,
    dataDir: string,
    logFile: string,
    progress: (line: string) => void,
    users: OwnNatsUsers,
    pickPort: () => Promise<number>,
    started: GroupStarted,
  ): Promise<OwnNatsServer> {
    await mkdir(dataDir, { recursive: true });
    await writeFile(users.configFile, renderNatsServerConfig(users.prefix, { roles: users.roles }));
    // Only the passwords the configuration references: nats-server needs nothing else of ours.
    const env: Record<string, string> = {};
    for (const role of [...users.roles, 'operator' as const]) {
      env[passwordVariable(role)] = users.passwords[role];
    }
    const pidFile = join(dataDir, 'nats-server.pid');
    await stopLeftover(pidFile, progress);
    // A port picked free may be taken before nats-server binds it: then pick another.
    for (let attempt = 1; ; attempt += 1) {
      const port = await pickPort();
      const from = existsSync(logFile) ? statSync(logFile).size : 0;
      const { child, server } = OwnNatsServer.spawn(
        binary,
        users,
        dataDir,
        logFile,
        env,
        pidFile,
        port,
        started,
      );
      // Its own word that it listens, not only that something answers: whatever took the
      // port answers too.
      const since = () => readFileSync(logFile).subarray(from).toString();
      const outcome = await pollUntil(
        'nats-server to accept connections',
        async () =>
          child.exitCode !== null ||
          (since().includes('Server is ready') && (await answers('127.0.0.1', port, 300))),
        15_000,
      ).then(() => (child.exitCode === null ? 'up' : 'exited'));
      if (outcome === 'up') {
        await writeFile(pidFile, String(child.pid));
        progress(
          `NATS: started ${binary} -js on 127.0.0.1:${port}, data in ${dataDir}, a user per service ` +
            `(${users.configFile}), no anonymous access`,
        );
        return server;
      }
      const output = since();
      if (attempt < PORT_ATTEMPTS && /address already in use/i.test(output)) {
        progress(`NATS: port ${port} was taken before nats-server bound it; trying another`);
        continue;
      }
      const tail = output.split('\n').slice(-10).join('\n');
      throw new StartupFailure(`nats-server exited at start (${child.exitCode}):\n${tail}`);
    }
  }

  private static spawn(
    binary: string,
    users: OwnNatsUsers,
    dataDir: string,
    logFile: string,
    env: Record<string, string>,
    pidFile: string,
    port: number,
    started: GroupStarted,
  ): { child: ChildProcess; server: OwnNatsServer } {
    const log = openSync(logFile, 'a');
    let child: ChildProcess;
    // No -m: the monitoring port stays closed; -a keeps the client port on loopback.
    const args = [
      '-c',
      users.configFile,
      '-a',
      '127.0.0.1',
      '-p',
      String(port),
      '-js',
      '-sd',
      dataDir,
    ];
    try {
      // Its own process group, so a Ctrl-C reaches it only after the services have drained;
      // recorded, so a start after npm start was killed can stop it.
      child = spawn(binary, args, { detached: true, env, stdio: ['ignore', log, log] });
    } finally {
      closeSync(log);
    }
    started('nats-server', child, [binary, ...args], 'SIGTERM');
    return { child, server: new OwnNatsServer(child, pidFile, `nats://127.0.0.1:${port}`) };
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGTERM');
      const stopped = await Promise.race([
        this.exited.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5_000).unref()),
      ]);
      if (!stopped) this.child.kill('SIGKILL');
    }
    await rm(this.pidFile, { force: true });
  }
}

/** A server left running by an `npm start` that was killed still writes to the store. */
async function stopLeftover(pidFile: string, progress: (line: string) => void): Promise<void> {
  if (!existsSync(pidFile)) return;
  const pid = Number(await readFile(pidFile, 'utf8'));
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  if (Number.isInteger(pid) && pid > 0 && isAlive(pid) && cmdline.includes('nats-server')) {
    progress(`stopping nats-server (pid ${pid}) left running by an earlier npm start`);
    process.kill(pid, 'SIGTERM');
    await pollUntil('the earlier nats-server to stop', () => !isAlive(pid), 10_000);
  }
  await rm(pidFile, { force: true });
}
