// Records processes' CPU with Linux perf over one measured window (bench:binding --perf); the
// breakdown of what it records is perf-breakdown.js. Apart from the bench so the bench reads
// as what it measures.
import { spawn, spawnSync } from 'node:child_process';
import { stat } from 'node:fs/promises';

/** perf's sampling frequency: each sample stands for about 1 ms of one thread's CPU. */
export const PERF_HZ = 999;

/** Why perf cannot record here, or undefined when it can. */
export function perfUnavailable() {
  const probe = spawnSync('perf', ['--version'], { encoding: 'utf8' });
  if (probe.error !== undefined || probe.status !== 0) {
    return 'Linux perf is not on PATH (Debian: apt-get install linux-perf)';
  }
  return undefined;
}

/**
 * Starts `perf record` on `pids` into `file`, and resolves once it records (its file exists),
 * so the window that follows is covered. `stop()` ends it and waits for its file.
 */
export async function startPerf(file, pids, { deadlineMs = 10_000 } = {}) {
  const child = spawn(
    'perf',
    ['record', '-e', 'cpu-clock', '-F', String(PERF_HZ), '-g', '-p', pids.join(','), '-o', file],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk.toString()));
  let exit;
  const exited = new Promise((resolve) =>
    child.once('exit', (code, signal) => resolve((exit = { code, signal }))),
  );
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    if (exit !== undefined) throw new Error(`perf record stopped at once: ${stderr.trim()}`);
    const size = await stat(file).then(
      (s) => s.size,
      () => 0,
    );
    if (size > 0) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`perf record did not start within ${deadlineMs} ms: ${stderr.trim()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    async stop() {
      child.kill('SIGINT');
      const { code, signal } = await exited;
      // perf ends an interrupted record with 130 (128 + SIGINT), or 0.
      if (code !== 0 && code !== 130 && signal !== 'SIGINT') {
        throw new Error(`perf record ended with ${code ?? signal}: ${stderr.trim()}`);
      }
    },
  };
}
