import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from './wait-for';

const ROOT = join(__dirname, '..', '..');

export interface SandboxProcess {
  readonly child: ChildProcess;
  /** The page's URL, as `npm start` printed it. */
  readonly url: string;
  /** Everything it printed so far. */
  output(): string;
  exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends the signal (Ctrl-C is SIGINT) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `npm start`'s program, dist/apps/sandbox/main.js (built by `npm run build`, as
 * `npm start` builds first), with exactly `env` plus PATH, and waits for the page's URL.
 * `root` is the clone to start it from (this one by default); `ownGroup` puts it in a process
 * group of its own, as a terminal does with a foreground job, so a test can signal the group.
 */
export async function startSandbox(
  env: Record<string, string | undefined>,
  {
    readyWithinMs = 60_000,
    root = ROOT,
    ownGroup = false,
  }: { readyWithinMs?: number; root?: string; ownGroup?: boolean } = {},
): Promise<SandboxProcess> {
  const entry = join(root, 'dist', 'apps', 'sandbox', 'main.js');
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run \`npm run build\` first`);
  const child = spawn(process.execPath, [entry], {
    cwd: root,
    detached: ownGroup,
    env: { PATH: process.env.PATH, SANDBOX_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let printed = '';
  child.stdout?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (printed += chunk.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = await waitFor(
    'the sandbox to print its page URL after every service is ready',
    () => {
      if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${printed}`);
      if (!/all \w+ services are ready/.test(printed)) return undefined;
      return /the sandbox page: (http:\/\/127\.0\.0\.1:\d+)/.exec(printed)?.[1];
    },
    { timeoutMs: readyWithinMs, intervalMs: 100 },
  ).catch((error: unknown) => {
    child.kill('SIGKILL');
    throw error;
  });
  return {
    child,
    url,
    output: () => printed,
    exited: () => exit,
    async stop(signal: NodeJS.Signals = 'SIGINT') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exit;
    },
  };
}
