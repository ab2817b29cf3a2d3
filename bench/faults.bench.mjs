// R6 at full size: the whole system with 1 000 prompts (TOLLGATE_FAULT_PROMPTS) in flight over
// the three platforms, once per fault (NATS restarted, PostgreSQL restarted, a replica of each
// binding SIGKILLed), and the figures of each: lost, doubled, time to converge.
// Usage: npm run bench:faults [-- --prompts 1000] [-- -t "R6 NATS"]
// TOLLGATE_FAULT_DURING_ASKS=0 holds the fault until every ask was taken (see prompt-flow.ts).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const args = process.argv.slice(2);
const at = args.indexOf('--prompts');
const prompts = at >= 0 ? Number(args[at + 1]) : 1_000;
if (!Number.isInteger(prompts) || prompts < 3) {
  console.error('faults bench: --prompts must be an integer of at least 3');
  process.exit(1);
}
const filter = args.includes('-t') ? args[args.indexOf('-t') + 1] : 'R6';
const dir = mkdtempSync(join(tmpdir(), 'tollgate-faults-'));
const figuresFile = join(dir, 'figures.jsonl');
// Where a run is, every 10 s (test/support/prompt-flow.ts): `tail -f` it to watch a long run.
const progressFile = join(dir, 'progress.log');
console.log(`faults bench: progress in ${progressFile}`);
const started = Date.now();
const jest = spawnSync(
  'npx',
  ['jest', 'test/faults/infrastructure-faults.spec.ts', '-t', filter, '--testTimeout', '3600000'],
  {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: {
      ...process.env,
      TOLLGATE_FAULT_PROMPTS: String(prompts),
      TOLLGATE_FAULT_FIGURES: figuresFile,
      TOLLGATE_FAULT_PROGRESS: progressFile,
    },
  },
);
let rows = [];
try {
  rows = readFileSync(figuresFile, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
} catch {
  // No figures: jest failed before any scenario finished; its output says why.
}
rmSync(dir, { recursive: true, force: true });
const seconds = (ms) => (ms / 1000).toFixed(1);
console.log(
  `\nR6 faults with ${prompts} prompts in flight (${seconds(Date.now() - started)} s in all)`,
);
console.log(
  'scenario               lost  doubled  fault at  converged after fault  total   reclicks',
);
for (const r of rows) {
  console.log(
    `${r.scenario.padEnd(22)} ${String(r.lost).padStart(4)}  ${String(r.doubled).padStart(7)}  ` +
      `${seconds(r.faultAtMs).padStart(7)} s  ${seconds(r.convergeAfterFaultMs).padStart(19)} s  ` +
      `${seconds(r.totalMs).padStart(5)} s  ${String(r.reclicks).padStart(8)}`,
  );
}
process.exit(jest.status ?? 1);
