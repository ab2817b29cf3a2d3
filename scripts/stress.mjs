// R8: runs every crash, recovery, replica and fault test (S2, S3, S9, S11, S12, B6, B12–B14,
// R1–R7) N times in a row and sums up: runs, failures per test, time. Tests are picked by the
// id their name starts with, in whichever spec file holds them, so new ones join by naming.
// Usage: npm run test:stress [-- --runs 50] [-- --ids "B12|B13|B14"] [-- --bail] [-- --list]
// Each run keeps its service processes' logs (at info; TOLLGATE_TEST_LOG_LEVEL changes that)
// only if it fails, and says where.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const DEFAULT_IDS = 'S2|S3|S9|S11|S12|B6|B12|B13|B14|R1|R2|R3|R4|R5|R6|R7';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : fallback;
};
const runs = Number(option('--runs', '50'));
const ids = option('--ids', DEFAULT_IDS);
const bail = args.includes('--bail');
if (!Number.isInteger(runs) || runs < 1) {
  console.error('stress: --runs must be a positive integer');
  process.exit(1);
}
if (!/^[A-Z][0-9]+(\|[A-Z][0-9]+)*$/.test(ids)) {
  console.error('stress: --ids must look like "B12|B13|R6"');
  process.exit(1);
}

// A scenario id opens a test or describe name: it('B12 …'), describe('R7 — …').
const opening = new RegExp(
  `\\b(?:it|test|describe)(?:\\.each\\([^)]*\\))?\\(\\s*[\`'"](?:${ids})\\b`,
);

function specFiles(dir) {
  const found = [];
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry === 'dist' || entry.startsWith('.')) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) found.push(...specFiles(path));
    else if (entry.endsWith('.spec.ts')) found.push(path);
  }
  return found;
}

const files = ['apps', 'libs', 'test']
  .flatMap((dir) => specFiles(join(ROOT, dir)))
  .filter((file) => opening.test(readFileSync(file, 'utf8')))
  .map((file) => relative(ROOT, file))
  .sort();
if (files.length === 0) {
  console.error(`stress: no spec names a test ${ids}`);
  process.exit(1);
}
// jest's -t is matched against the whole name, describes included.
const namePattern = `(^|\\s)(${ids})(\\s|$)`;
console.log(`stress: ${runs} run(s) of the tests named ${ids}, in ${files.length} files:`);
for (const file of files) console.log(`  ${file}`);
if (args.includes('--list')) process.exit(0);

const dir = mkdtempSync(join(tmpdir(), 'tollgate-stress-'));
const failuresByTest = new Map();
const failedRuns = [];
let executed = 0;
let testsPerRun = 0;
const started = Date.now();
for (let run = 1; run <= runs; run += 1) {
  const outputFile = join(dir, `run-${run}.json`);
  // Every service process's log, at info, kept when the run fails: a stall is read from them.
  const logDir = join(dir, `run-${run}-logs`);
  mkdirSync(logDir);
  const runStarted = Date.now();
  const jest = spawnSync(
    'npx',
    ['jest', ...files, '-t', namePattern, '--ci', '--json', `--outputFile=${outputFile}`],
    {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
      encoding: 'utf8',
      maxBuffer: 1 << 28,
      env: {
        ...process.env,
        TOLLGATE_TEST_LOG_DIR: logDir,
        TOLLGATE_TEST_LOG_LEVEL: process.env.TOLLGATE_TEST_LOG_LEVEL ?? 'info',
      },
    },
  );
  executed = run;
  let report;
  try {
    report = JSON.parse(readFileSync(outputFile, 'utf8'));
  } catch {
    report = undefined;
  }
  const failed = [];
  const why = [];
  let passed = 0;
  for (const suite of report?.testResults ?? []) {
    const assertions = suite.assertionResults ?? [];
    for (const test of assertions) {
      if (test.status === 'passed') passed += 1;
      if (test.status !== 'failed') continue;
      failed.push(test.fullName);
      why.push(`${test.fullName}\n      ${firstLines(test.failureMessages?.[0])}`);
      failuresByTest.set(test.fullName, (failuresByTest.get(test.fullName) ?? 0) + 1);
    }
    // A suite that failed outside any test (a hook, a compile error) fails as a whole.
    if (suite.status === 'failed' && !assertions.some((t) => t.status === 'failed')) {
      const name = `${relative(ROOT, suite.name)} (outside a test)`;
      failed.push(name);
      why.push(`${name}\n      ${firstLines(suite.message)}`);
      failuresByTest.set(name, (failuresByTest.get(name) ?? 0) + 1);
    }
  }
  if (!report) {
    failed.push('jest produced no report');
    failuresByTest.set(
      'jest produced no report',
      (failuresByTest.get('jest produced no report') ?? 0) + 1,
    );
  }
  testsPerRun = Math.max(testsPerRun, passed + failed.length);
  const seconds = ((Date.now() - runStarted) / 1000).toFixed(0);
  console.log(
    `run ${run}/${runs}: ${passed} passed, ${failed.length} failed, ${seconds} s` +
      (failed.length ? `\n  ${failed.join('\n  ')}` : ''),
  );
  if (failed.length === 0) {
    rmSync(logDir, { recursive: true, force: true });
  } else {
    failedRuns.push(run);
    console.log(`  the run's service logs are kept in ${logDir}`);
    // The failure's own words: what a flake looks like is half of finding it.
    console.log(`  why:\n    ${why.join('\n    ')}`);
    if (!report) console.log((jest.stderr ?? '').split('\n').slice(-20).join('\n'));
    if (bail) break;
  }
}
// A failed run's logs stay for reading; a clean stress run leaves nothing behind.
if (failedRuns.length === 0) rmSync(dir, { recursive: true, force: true });

function firstLines(text) {
  // Jest's messages carry colour codes and a stack; the first lines say what was expected.
  return String(text ?? '')
    .replace(/\u001b\[[0-9;]*m/g, '')
    .split('\n')
    .filter((line) => line.trim() !== '' && !/^\s+at /.test(line))
    .slice(0, 8)
    .join('\n      ');
}

const minutes = ((Date.now() - started) / 60_000).toFixed(1);
console.log('\nstress summary');
console.log(`  runs: ${executed} (${testsPerRun} tests each), ${minutes} min in all`);
console.log(
  `  runs with a failure: ${failedRuns.length}${failedRuns.length ? ` (${failedRuns.join(', ')})` : ''}`,
);
if (failuresByTest.size === 0) console.log('  failures per test: none');
else {
  console.log('  failures per test:');
  for (const [name, count] of [...failuresByTest].sort((a, b) => b[1] - a[1])) {
    console.log(`    ${count}× ${name}`);
  }
}
process.exit(failedRuns.length === 0 ? 0 : 1);
