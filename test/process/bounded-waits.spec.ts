import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { freePort } from '../support/free-port';

const ROOT = join(__dirname, '..', '..');

interface Run {
  code: number | null;
  stderr: string;
  ms: number;
}

/** Runs an operator script against the built code with exactly `env` (plus PATH). */
function script(name: 'provision' | 'migrate', env: Record<string, string>): Promise<Run> {
  const file = join(ROOT, 'scripts', `${name}.mjs`);
  if (!existsSync(join(ROOT, 'dist', 'libs'))) {
    throw new Error('dist/ is missing: run `npm run build` first');
  }
  const started = Date.now();
  return new Promise((resolve) => {
    // The kill is only a safety net for a broken script; the assertions are on its own exit.
    execFile(
      process.execPath,
      [file],
      { cwd: ROOT, env: { PATH: process.env.PATH, LOG_LEVEL: 'silent', ...env }, timeout: 60_000 },
      (error, _stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stderr, ms: Date.now() - started });
      },
    );
  });
}

/** A server that accepts connections and never says a word, as a hung or half-partitioned peer. */
async function blackHole(): Promise<{ port: number; server: Server; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { port, server, sockets };
}

describe('R5 — operator scripts give up on a missing dependency (process)', () => {
  let hole: Awaited<ReturnType<typeof blackHole>>;
  let closedPort: number;

  beforeAll(async () => {
    hole = await blackHole();
    closedPort = await freePort();
  });

  afterAll(async () => {
    for (const socket of hole.sockets) socket.destroy();
    await new Promise((resolve) => hole.server.close(resolve));
  });

  it('R5 provision and migrate fail with a clear message within 30 s when NATS or PostgreSQL is down or never answers', async () => {
    const [natsDown, natsSilent, pgDown, pgSilent] = await Promise.all([
      script('provision', {
        NATS_URL: `nats://127.0.0.1:${closedPort}`,
        TOLLGATE_SUBJECT_PREFIX: 'r5down',
      }),
      script('provision', {
        NATS_URL: `nats://127.0.0.1:${hole.port}`,
        TOLLGATE_SUBJECT_PREFIX: 'r5silent',
      }),
      script('migrate', { DATABASE_URL: `postgres://postgres@127.0.0.1:${closedPort}/test` }),
      script('migrate', { DATABASE_URL: `postgres://postgres:secret@127.0.0.1:${hole.port}/test` }),
    ]);

    for (const run of [natsDown, natsSilent]) {
      expect(run.code).toBe(1);
      expect(run.ms).toBeLessThan(30_000);
      expect(run.stderr).toMatch(/^provision: NATS at nats:\/\/127\.0\.0\.1:\d+ did not answer/m);
    }
    for (const run of [pgDown, pgSilent]) {
      expect(run.code).toBe(1);
      expect(run.ms).toBeLessThan(30_000);
      expect(run.stderr).toMatch(
        /^migrate: cannot reach PostgreSQL at postgres:\/\/.*127\.0\.0\.1/m,
      );
    }
    expect(pgDown.stderr).toContain('ECONNREFUSED');
    process.stdout.write(
      `R5 gave up after: provision ${natsDown.ms} ms (closed port), ${natsSilent.ms} ms (silent); ` +
        `migrate ${pgDown.ms} ms (closed port), ${pgSilent.ms} ms (silent)\n`,
    );
    // The password never reaches the message.
    expect(pgSilent.stderr).not.toContain('secret');
  }, 90_000);
});
