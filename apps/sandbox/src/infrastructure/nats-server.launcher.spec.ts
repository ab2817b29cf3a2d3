import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NATS_ROLES, randomNatsPassword } from '@tollgate/messaging';
import { answers, freePort } from './local-ports';
import { NATS_MISSING, type OwnNatsUsers, provideNats } from './nats-server.launcher';
import { StartupFailure } from './startup-failure';

const TEST_NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
const users = (dir: string): OwnNatsUsers => ({
  prefix: 'sandbox',
  roles: ['session-service'],
  passwords: Object.fromEntries(NATS_ROLES.map((role) => [role, randomNatsPassword()])) as never,
  configFile: join(dir, 'nats-server.conf'),
});

describe('W1 — npm start finds NATS or says how to get it', () => {
  let dir: string;
  const lines: string[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-nats-'));
    lines.length = 0;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('W1 uses NATS_URL when something answers there, and starts nothing', async () => {
    const nats = await provideNats(
      TEST_NATS_URL,
      join(dir, 'nats'),
      join(dir, 'log'),
      (l) => lines.push(l),
      users(dir),
      [],
    );
    expect(nats).toMatchObject({ url: TEST_NATS_URL, own: false });
    expect(lines.join('\n')).toContain('using NATS_URL');
  });

  it('W1 with no NATS to use and no nats-server to start, stops with the install command for Debian/Ubuntu, macOS and Docker', async () => {
    const nowhere = join(dir, 'empty');
    const attempt = provideNats(
      'nats://127.0.0.1:1',
      join(dir, 'nats'),
      join(dir, 'log'),
      (l) => lines.push(l),
      users(dir),
      [nowhere],
    );
    await expect(attempt).rejects.toThrow(StartupFailure);
    await expect(attempt).rejects.toThrow(NATS_MISSING);
    expect(NATS_MISSING).toMatch(/apt-get install -y nats-server/);
    expect(NATS_MISSING).toMatch(/brew install nats-server/);
    expect(NATS_MISSING).toMatch(/docker run .* nats:2 -js/);
    expect(lines.join('\n')).toContain('nothing answers at NATS_URL');
  });

  it('D5 a port picked free but taken before nats-server binds it is traded for another', async () => {
    // The race, made certain: the first port handed over already has a listener.
    const squatter = createServer();
    const taken = await freePort();
    await new Promise<void>((resolve) => squatter.listen(taken, '127.0.0.1', resolve));
    const picks = [taken];
    try {
      const nats = await provideNats(
        undefined,
        join(dir, 'nats'),
        join(dir, 'log'),
        (l) => lines.push(l),
        users(dir),
        undefined,
        async () => picks.shift() ?? freePort(),
      );
      try {
        const port = Number(new URL(nats.url).port);
        expect(port).not.toBe(taken);
        expect(await answers('127.0.0.1', port)).toBe(true);
        expect(lines).toContain(
          `NATS: port ${taken} was taken before nats-server bound it; trying another`,
        );
      } finally {
        await nats.stop();
      }
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  });
});
