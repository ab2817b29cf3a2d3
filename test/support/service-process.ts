import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './free-port';
import { waitFor } from './wait-for';

export type ServiceName =
  'session-service' | 'slack-binding' | 'discord-binding' | 'mattermost-binding';

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
  const child = spawn(process.execPath, [entryPointOf(service)], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      LOG_LEVEL: 'warn',
      // The platforms' rate limits, paced 1000 times faster: a suite's many edits in one
      // workspace must not wait out Slack's minute-long windows (P5 sets its own).
      TOLLGATE_RATE_WINDOW_DIVISOR: '1000',
      ...env,
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  child.stdout?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
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
    async waitUntilReady(timeoutMs = 10_000) {
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
