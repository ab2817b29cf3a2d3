import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { reapLeftoverGroups } from '../../apps/sandbox/src/infrastructure/leftover-groups.reaper';
import { SERVICE_NAMES } from '../../apps/sandbox/src/services/service-supervisor';
import { type SandboxProcess, startSandbox } from '../support/sandbox-process';
import { waitFor } from '../support/wait-for';

/**
 * (process) `npm start` with nothing configured: no DATABASE_URL, no NATS_URL, no platform
 * secret. It runs its own embedded PostgreSQL and nats-server with their data in one
 * directory (TOLLGATE_DATA_DIR here, `.tollgate` by default), and a second start finds it.
 */
const PLATFORMS = ['slack', 'discord', 'mattermost'] as const;
const DRAIN_MS = 3_000;
/** Each service holds itself to its drain deadline plus this grace before it exits anyway. */
const SERVICE_CLOSE_GRACE_MS = 3_000;

let dataDir: string;
let sandbox: SandboxProcess | undefined;
/** Services of a sandbox killed with -9, until they are seen gone. */
let orphans: number[] = [];

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'tollgate-npm-start-'));
  // As root, PostgreSQL runs as the `postgres` user, which must reach its data directory.
  chmodSync(dataDir, 0o755);
});

afterAll(async () => {
  await sandbox?.stop('SIGKILL');
  // A test that failed after a kill -9 leaves nothing running: what npm start's next start
  // would do, done here.
  await reapLeftoverGroups(dataDir, () => undefined);
  for (const pid of orphans)
    if (processOf(pid)?.cmdline.includes('dist/apps/')) process.kill(pid, 'SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

const env = () => ({
  TOLLGATE_DATA_DIR: dataDir,
  TOLLGATE_DRAIN_MS: String(DRAIN_MS),
  TOLLGATE_RETRY_BASE_MS: '50',
  LOG_LEVEL: 'warn',
});

async function post(
  url: string,
  path: string,
  body: unknown,
): Promise<{ status?: number; error?: string }> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await response.json()) as { status?: number; error?: string };
}

const panel = async (url: string, platform: string): Promise<string> =>
  (await fetch(`${url}/panels/${platform}?as=alice`)).text();

/** The id of the message holding a prompt with buttons, once it shows. */
function promptIdIn(html: string): string | undefined {
  const articles = html.split('<article').slice(1);
  const prompt = articles.reverse().find((a) => a.includes('>Approve once</button>'));
  return prompt ? /data-message-id="([^"]+)"/.exec(prompt)?.[1] : undefined;
}

function articleOf(html: string, id: string): string {
  return html.split('<article').find((a) => a.includes(`data-message-id="${id}"`)) ?? '';
}

async function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Every port the run listened on: NATS, PostgreSQL, the page, the five services. */
async function portsOf(run: SandboxProcess): Promise<number[]> {
  const printed = run.output();
  const nats = Number(/NATS: started .* on 127\.0\.0\.1:(\d+)/.exec(printed)?.[1]);
  const postgres = Number(/PostgreSQL: embedded, on 127\.0\.0\.1:(\d+)/.exec(printed)?.[1]);
  const services = [
    ...(await (await fetch(`${run.url}/services`)).text()).matchAll(/class="port">:(\d+)/g),
  ].map((m) => Number(m[1]));
  expect(services).toHaveLength(5);
  return [nats, postgres, Number(new URL(run.url).port), ...services];
}

/** /proc's view of a pid: its parent and command line, or undefined once it is gone or a zombie. */
function processOf(pid: number): { ppid: number; cmdline: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (state === 'Z') return undefined;
    return { ppid: Number(ppid), cmdline: readFileSync(`/proc/${pid}/cmdline`, 'utf8') };
  } catch {
    return undefined;
  }
}

/** The five services npm start runs: its children running dist/apps/<service>/main.js. */
function servicesOf(launcher: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      const seen = processOf(pid);
      return seen?.ppid === launcher && /dist\/apps\/[a-z-]+\/main\.js/.test(seen.cmdline);
    });
}

// A sandbox is given 90 s to become ready; a test must outlast its own waits, or on a loaded
// machine jest's 60 s default ends it first (X15 did under load) and the wait never reports.
jest.setTimeout(180_000);

describe('W1 — npm start, with no configuration', () => {
  it('W1 brings up embedded PostgreSQL, its own nats-server, the services and the page; Ctrl-C stops it all within the drain deadline; a second start refreshes a pending prompt "still valid"', async () => {
    sandbox = await startSandbox(env(), { readyWithinMs: 90_000 });
    const first = sandbox;
    const printed = first.output();
    expect(printed).toMatch(/NATS: started .*nats-server -js on 127\.0\.0\.1:\d+/);
    expect(printed).toMatch(/creating the embedded PostgreSQL database/);
    expect(printed).toMatch(/PostgreSQL: embedded, on 127\.0\.0\.1:\d+/);
    expect(printed).toMatch(/the sandbox page: http:\/\/127\.0\.0\.1:\d+/);
    expect(existsSync(join(dataDir, 'pg', 'PG_VERSION'))).toBe(true);

    // A pending prompt on every platform.
    const prompts = new Map<string, string>();
    for (const platform of PLATFORMS) {
      const sent = await post(first.url, '/api/say', {
        platform,
        as: 'alice',
        text: '!write_note {"text": "survive the night"}',
      });
      expect(sent).toEqual({ status: 200 });
    }
    for (const platform of PLATFORMS) {
      prompts.set(
        platform,
        await waitFor(
          `${platform}: the prompt`,
          async () => promptIdIn(await panel(first.url, platform)),
          {
            timeoutMs: 20_000,
          },
        ),
      );
    }

    // Ctrl-C.
    const ports = await portsOf(first);
    const stopping = Date.now();
    const exit = await first.stop('SIGINT');
    const tookMs = Date.now() - stopping;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(tookMs).toBeLessThan(DRAIN_MS + SERVICE_CLOSE_GRACE_MS);
    expect(first.output()).toMatch(/stopped in \d+\.\d s/);
    for (const port of ports) await expect(answers(port)).resolves.toBe(false);

    // Again: the same data, and each pending prompt is edited in place to say it is still valid.
    sandbox = await startSandbox(env(), { readyWithinMs: 90_000 });
    const second = sandbox;
    expect(second.output()).not.toMatch(/creating the embedded PostgreSQL database/);
    expect(second.output()).toMatch(/conversation from the last run restored/);
    for (const [platform, id] of prompts) {
      await waitFor(
        `${platform}: the prompt from the first run, still valid`,
        async () => {
          const article = articleOf(await panel(second.url, platform), id);
          return /still valid/i.test(article) && article.includes('>Approve once</button>');
        },
        { timeoutMs: 30_000 },
      );
    }
    expect(await second.stop('SIGINT')).toEqual({ code: 0, signal: null });
    sandbox = undefined;
  });
});

describe('D8 — npm start killed with -9 (OOM killer, CI timeout) leaves nothing behind', () => {
  it('D8 its five services drain on their own once it is gone; the next start stops the nats-server and PostgreSQL it left, and becomes ready', async () => {
    // Info logs: each service's own account of why it shut down.
    const killedEnv = { ...env(), LOG_LEVEL: 'info' };
    sandbox = await startSandbox(killedEnv, { readyWithinMs: 90_000 });
    const killed = sandbox;
    const services = servicesOf(killed.child.pid!);
    expect(services).toHaveLength(5);
    orphans = services;
    const recordsFile = join(dataDir, 'process-groups.json');
    expect(statSync(recordsFile).mode & 0o777).toBe(0o600);
    const records = JSON.parse(readFileSync(recordsFile, 'utf8')) as {
      name: string;
      pgid: number;
    }[];
    expect(records.map((r) => r.name).sort()).toEqual(['PostgreSQL', 'nats-server']);

    expect(await killed.stop('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });
    await waitFor(
      'the five services to notice npm start is gone, drain and exit',
      () => services.every((pid) => processOf(pid) === undefined),
      { timeoutMs: DRAIN_MS + SERVICE_CLOSE_GRACE_MS + 15_000, intervalMs: 100 },
    );
    orphans = [];
    for (const name of SERVICE_NAMES) {
      const log = readFileSync(join(dataDir, 'logs', `${name}.log`), 'utf8');
      expect(log).toMatch(/"parent":"gone".*"msg":"shutting down"/);
      expect(log).toMatch(/"msg":"stopped"/);
    }
    // Not node: they stay, holding their ports and the data, until the next start.
    for (const { pgid } of records) expect(processOf(pgid)).toBeDefined();

    sandbox = await startSandbox(env(), { readyWithinMs: 90_000 });
    const next = sandbox;
    for (const { name, pgid } of records) {
      expect(next.output()).toContain(
        `stopped ${name} (pid ${pgid}) left running by an earlier npm start that was killed`,
      );
      expect(processOf(pgid)).toBeUndefined();
    }
    expect(await next.stop('SIGINT')).toEqual({ code: 0, signal: null });
    sandbox = undefined;
    // A clean stop leaves nothing to reap.
    expect(existsSync(recordsFile)).toBe(false);
  });
});
