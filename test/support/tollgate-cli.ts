import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const CLI = join(__dirname, '..', '..', 'dist', 'apps', 'tollgate-cli', 'main.js');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

function requireBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`);
}

/**
 * Runs the built operator CLI with exactly `env` (plus PATH), as an operator's shell would, its
 * stdin not a terminal (as in a script or cron job).
 */
export function tollgate(args: readonly string[], env: Record<string, string>): Promise<CliRun> {
  requireBuilt();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: { PATH: process.env.PATH, ...env }, timeout: 30_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

export interface MeasureOptions {
  readonly nodeFlags?: readonly string[];
  /**
   * After the first output, the reader takes nothing more until the CLI has used no CPU for
   * a while, then reads at full speed: a slow consumer at its slowest. A CLI that waits for
   * its output to drain stops once the pipe is full; one that does not keeps going and queues
   * its whole output in its heap. Not before the first output: the CLI idles while it waits
   * for the database to open (300 ms and more on a loaded machine). Should it idle for another
   * reason (a slow fetch), the reader only resumes early, which can make the test miss a
   * queueing CLI but never fail a streaming one.
   */
  readonly readerStalls?: boolean;
}

/** CPU time the kernel has charged the process, in clock ticks; undefined once it has exited. */
function cpuTicks(pid: number | undefined): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised name, which may itself hold spaces: utime is the 14th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

/** 30 samples 10 ms apart with no CPU used: blocked, not between two fetches. */
const IDLE_SAMPLES = 30;

/**
 * Runs the CLI counting its output lines without keeping them, and samples the process's
 * resident set from /proc while it runs: the figure is the CLI's, not this test's.
 */
export function tollgateMeasured(
  args: readonly string[],
  env: Record<string, string>,
  { nodeFlags = [], readerStalls = false }: MeasureOptions = {},
): Promise<{ code: number; lines: number; peakRssBytes: number; stderr: string }> {
  requireBuilt();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, CLI, ...args], {
      env: { PATH: process.env.PATH, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let lines = 0;
    let stderr = '';
    let peakRssBytes = 0;
    let stalled = false;
    let lastTicks: number | undefined;
    let idleSamples = 0;
    let stalledOnce = false;
    const sample = () => {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
        peakRssBytes = Math.max(peakRssBytes, kb * 1024);
      } catch {
        // The process has just exited: its last sample stands.
      }
      if (stalled) {
        const ticks = cpuTicks(child.pid);
        idleSamples = ticks !== undefined && ticks === lastTicks ? idleSamples + 1 : 0;
        lastTicks = ticks;
        if (idleSamples >= IDLE_SAMPLES || ticks === undefined) {
          stalled = false;
          child.stdout.resume();
        }
      }
    };
    const sampler = setInterval(sample, 10);
    child.stdout.on('data', (chunk: Buffer) => {
      for (const byte of chunk) if (byte === 0x0a) lines += 1;
      if (readerStalls && lines > 0 && !stalledOnce) {
        stalledOnce = true;
        stalled = true;
        child.stdout.pause();
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', (error) => {
      clearInterval(sampler);
      reject(error);
    });
    child.on('close', (code) => {
      clearInterval(sampler);
      resolve({ code: code ?? -1, lines, peakRssBytes, stderr });
    });
  });
}
