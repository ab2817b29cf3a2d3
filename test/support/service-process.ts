import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, existsSync, type WriteStream } from 'node:fs';
import { basename, join } from 'node:path';
import { freePort } from './free-port';
import { waitFor } from './wait-for';

export type ServiceName =
  'session-service' | 'slack-binding' | 'discord-binding' | 'mattermost-binding' | 'approval-api';

const ROOT = join(__dirname, '..', '..');

export interface ServiceProcess {
  readonly port: number;
  readonly child: ChildProcess;
  /** Everything the process printed so far, stdout and stderr interleaved. */
  output(): string;
  url(path: string): string;
  exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends the signal and waits for exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  waitUntilReady(timeoutMs?: number): Promise<void>;
}

/**
 * Extra node flags for every service a test starts, e.g.
 * `TOLLGATE_TEST_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof"`: a test's services get
 * exactly the environment it gives them (no NODE_OPTIONS), so profiling one needs this.
 */
export function testNodeArgs(): string[] {
  return (process.env.TOLLGATE_TEST_NODE_ARGS ?? '').split(' ').filter(Boolean);
}

export function entryPointOf(service: ServiceName): string {
  const entry = join(ROOT, 'dist', 'apps', service, 'main.js');
  if (!existsSync(entry)) {
    throw new Error(`${entry} is missing: run \`npm run build\` before the process-level tests`);
  }
  return entry;
}

/** Starts the built service as a child process on a free port with exactly `env` (plus PATH). */
export async function startService(
  service: ServiceName,
  env: Record<string, string | undefined>,
): Promise<ServiceProcess> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const child = spawn(process.execPath, [...testNodeArgs(), entryPointOf(service)], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      LOG_LEVEL: process.env.TOLLGATE_TEST_LOG_LEVEL ?? 'warn',
      // The platforms' rate limits, paced 1000 times faster: a suite's many edits in one
      // workspace must not wait out Slack's minute-long windows (P5 sets its own).
      TOLLGATE_RATE_WINDOW_DIVISOR: '1000',
      ...env,
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  const kept = keptLogOf(service, child.pid);
  const print = (chunk: Buffer) => {
    printed += chunk.toString();
    kept?.write(chunk);
  };
  child.stdout?.on('data', print);
  child.stderr?.on('data', print);
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      kept?.end(`# exited code=${code} signal=${signal} at ${new Date().toISOString()}\n`);
      resolve({ code, signal });
    }),
  );
  const url = (path: string) => `http://127.0.0.1:${port}${path}`;
  return {
    port,
    child,
    output: () => printed,
    url,
    exited: () => exit,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exit;
    },
    // A fresh schema migrates first; on a shared machine under load that alone took over 10 s.
    async waitUntilReady(timeoutMs = 30_000) {
      await waitFor(
        `${service} /health/ready to answer 200`,
        async () => {
          if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${printed}`);
          const response = await fetch(url('/health/ready'));
          if (response.status !== 200)
            throw new Error(`${response.status} ${await response.text()}`);
          return true;
        },
        { timeoutMs },
      );
    },
  };
}

/**
 * With TOLLGATE_TEST_LOG_DIR set (the stress script sets it per run), each service's output is
 * also written to a file there, named by spec file and process, so a failed run's processes
 * can be read afterwards: a test's own output() is gone once its process is disposed.
 */
function keptLogOf(service: ServiceName, pid: number | undefined): WriteStream | undefined {
  const dir = process.env.TOLLGATE_TEST_LOG_DIR;
  if (!dir) return undefined;
  // Outside jest (a bench's own harness) there is no test to name.
  const state: { testPath?: string; currentTestName?: string } =
    typeof expect === 'undefined' ? {} : expect.getState();
  const spec = basename(state.testPath ?? 'unknown').replace(/\.spec\.ts$/, '');
  const file = createWriteStream(join(dir, `${spec}.${service}.${pid ?? 'nopid'}.log`));
  // In a hook jest still names the test before it, so this names roughly where, not exactly.
  const test = state.currentTestName ?? '(none yet)';
  file.write(`# ${service} pid ${pid} started ${new Date().toISOString()}, near ${test}\n`);
  return file;
}
