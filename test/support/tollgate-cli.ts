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

/**
 * Runs the CLI counting its output lines without keeping them, and samples the process's
 * resident set from /proc while it runs: the figure is the CLI's, not this test's.
 */
export function tollgateMeasured(
  args: readonly string[],
  env: Record<string, string>,
  nodeFlags: readonly string[] = [],
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
    const sample = () => {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
        peakRssBytes = Math.max(peakRssBytes, kb * 1024);
      } catch {
        // The process has just exited: its last sample stands.
      }
    };
    const sampler = setInterval(sample, 10);
    child.stdout.on('data', (chunk: Buffer) => {
      for (const byte of chunk) if (byte === 0x0a) lines += 1;
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
