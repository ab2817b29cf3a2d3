// The checks `npm test` runs before jest: ESLint, the type check, Prettier and the build.
// Run one after another they took about two minutes of a two-core machine's wall time, ESLint
// (type-aware, so it builds its own TypeScript program) alone more than half of it, while one
// core idled: each tool is single-threaded, and `eslint --concurrency 2` was slower still,
// since every worker builds the program again. So they run in two lanes side by side, ESLint
// in one and the rest in order in the other, which ends when the longer lane does.
// Each step's output is held and printed whole when its lane ends, so two tools never
// interleave their lines; every step runs even when another fails, so one run shows every
// lint and type error, and the exit code is the first failure's.
// Usage: node scripts/checks.mjs
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const root = join(import.meta.dirname, '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);

const LANES = [
  [{ name: 'eslint', command: bin('eslint'), args: ['.', '--max-warnings', '0'] }],
  [
    { name: 'typecheck', command: bin('tsc'), args: ['-p', 'tsconfig.json', '--noEmit'] },
    { name: 'prettier', command: bin('prettier'), args: ['--check', '.'] },
    { name: 'build', command: process.execPath, args: [join(root, 'scripts', 'build.mjs')] },
  ],
];

function run(step) {
  const started = performance.now();
  return new Promise((resolve) => {
    const chunks = [];
    const child = spawn(step.command, step.args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk) => chunks.push(chunk));
    child.stderr.on('data', (chunk) => chunks.push(chunk));
    child.on('error', (error) => resolve({ step, code: 1, output: `${error.message}\n`, started }));
    child.on('close', (code, signal) =>
      resolve({
        step,
        code: code ?? (signal ? 1 : 0),
        output: Buffer.concat(chunks).toString('utf8'),
        started,
      }),
    );
  });
}

function report({ step, code, output, started }) {
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const verdict = code === 0 ? 'ok' : `failed (exit ${code})`;
  process.stdout.write(`\n── ${step.name}: ${verdict} in ${seconds} s\n`);
  if (output.trim() !== '') process.stdout.write(output.endsWith('\n') ? output : `${output}\n`);
}

async function lane(steps) {
  const codes = [];
  for (const step of steps) {
    const result = await run(step);
    report(result);
    codes.push(result.code);
  }
  return codes;
}

const names = LANES.map((steps) => steps.map((step) => step.name).join(' → ')).join('  ‖  ');
process.stdout.write(`checks: ${names}\n`);
const started = performance.now();
const codes = (await Promise.all(LANES.map(lane))).flat();
const failed = codes.find((code) => code !== 0);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
process.stdout.write(
  `\nchecks: ${failed === undefined ? 'all passed' : 'failed'} in ${seconds} s\n`,
);
process.exitCode = failed ?? 0;
