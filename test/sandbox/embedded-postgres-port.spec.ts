import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedPostgresServer } from '../../apps/sandbox/src/infrastructure/embedded-postgres.server';
import { freePort } from '../../apps/sandbox/src/infrastructure/local-ports';

describe('D5 — the sandbox’s embedded PostgreSQL and a port taken under it', () => {
  it('D5 a port picked free but taken before PostgreSQL binds it is traded for another', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tollgate-pg-port-'));
    // Open to the `postgres` user (as root the server runs as it): the data then stays here,
    // not in a copy under /var/tmp that would outlive the test.
    await chmod(dir, 0o755);
    // The race, made certain: the port handed over already has a listener.
    // It only holds the port: a connection (the readiness probe's) is closed at once.
    const squatter = createServer((socket) => socket.destroy());
    const taken = await freePort();
    await new Promise<void>((resolve) => squatter.listen(taken, '127.0.0.1', resolve));
    const lines: string[] = [];
    let server: EmbeddedPostgresServer | undefined;
    try {
      server = await EmbeddedPostgresServer.start(
        join(dir, 'pg'),
        join(dir, 'postgres.log'),
        (line) => lines.push(line),
        'Sandbox0password0for0this0test',
        true,
        async () => taken,
      );
      expect(server.port).not.toBe(taken);
      expect(server.url).toContain(`@127.0.0.1:${server.port}/`);
      expect(lines).toContain(
        `PostgreSQL: port ${taken} was taken before it bound it; trying ${server.port}`,
      );
    } finally {
      await server?.stop();
      await new Promise((resolve) => squatter.close(resolve));
      await rm(dir, { recursive: true, force: true });
    }
  });
});
