import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_DATABASE_URL } from '../support/database';
import { TEST_NATS_URL } from '../support/nats';

const ROOT = join(__dirname, '..', '..');
const BENCH = join(ROOT, 'bench');

/**
 * Every bench under bench/, how its smoke mode is asked for, and what its table prints. A
 * bench added without an entry here (or in SMOKED_ELSEWHERE) fails P1, so none can be added
 * that nothing runs.
 */
/** bench:binding --perf records with Linux perf where the machine has it (CI's does). */
const PERF = spawnSync('perf', ['--version']).status === 0;
const PERF_DIR = PERF ? mkdtempSync(join(tmpdir(), 'tollgate-bench-perf-')) : undefined;
afterAll(() => {
  if (PERF_DIR !== undefined) rmSync(PERF_DIR, { recursive: true, force: true });
});

const SMOKE_RUNS: Record<string, { args: string[]; table: RegExp[] }> = {
  'binding.bench.mjs': {
    // A few warm-up outputs, so that the warm-up of each replica (the second one's too) runs.
    args: [
      ...['--platform', 'all', '--smoke', '--json', '--warm-up', '5'],
      ...(PERF_DIR === undefined ? [] : ['--perf', PERF_DIR]),
    ],
    table: [
      ...(PERF
        ? [
            /where the CPU goes at 0 ms, 1 replica, over the last round's 12 measured edits/,
            /CPU ms\/out by layer \(of which kernel\) +\| +binding \| +agent floor\nPostgreSQL client \(pg\) +\| +[\d.]+ \([\d.]+\) \| +[\d.]+ \([\d.]+\)/,
            /\nTollgate code +\| +[\d.]+ \([\d.]+\) \| +0\.000 \(0\.000\)\n/,
            /\ntotal, from perf +\| +[\d.]+ \([\d.]+\) \| +[\d.]+ \([\d.]+\)\n/,
          ]
        : []),
      /platform slack, median of 1 runs of 12 outputs after 5 per replica to warm up/,
      /platform slack,[^\n]*\n[^\n]*\ntwo floors[^\n]*\n\nlatency \| replicas/,
      /platform discord,[^\n]*\n[^\n]*\ntwo floors[^\n]*\n\nlatency \| replicas/,
      /platform mattermost,[^\n]*\n[^\n]*\ntwo floors[^\n]*\n\nlatency \| replicas/,
      /chat API calls per prompt lifecycle: 3\.00 for 3\.00/,
      /fetch floor out\/s \| agent floor out\/s \| binding out\/s/,
      /database CPU ms\/out at 0 ms, 1 replica\(s\) \(the PostgreSQL backends serving each\): fetch floor [\d.]+, agent floor [\d.]+, binding [\d.]+; binding and its database [\d.]+/,
    ],
  },
  'jetstream-transport.bench.mjs': {
    args: ['--smoke'],
    table: [/handler called directly/, /the layer's cost: -?\d+ ns\/message/],
  },
  'approval-api.bench.mjs': {
    args: ['--smoke'],
    table: [
      /approvals created per second +\d+/,
      /decision → long-poll answer p99 \(ms\) +[\d.]+/,
      /RSS per held wait \(KiB\) +-?[\d.]+/,
    ],
  },
  'log-scrubber.bench.mjs': {
    args: ['--smoke'],
    table: [/path redaction only/, /added per line: -?\d+ ns/],
  },
};

/** Benches whose smoke run lives with their owner's tests. */
const SMOKED_ELSEWHERE: Record<string, string> = {
  'session-service.bench.mjs': 'test/process/session-bench.smoke.spec.ts',
  // Only a wrapper: it runs the R6 spec at 1,000 prompts and prints its figures; npm test runs
  // that same spec at 60, so running the wrapper here too would start the whole system twice.
  'faults.bench.mjs': 'test/faults/infrastructure-faults.spec.ts',
  'mcp-gateway.bench.mjs': 'test/bench/mcp-gateway-bench.smoke.spec.ts',
};

interface Run {
  code: number | null;
  output: string;
}

const runs = new Map<string, Promise<Run>>();

/** Runs a bench once per test file (the binding's smoke run serves P1 to P4). */
function smoke(file: string): Promise<Run> {
  let run = runs.get(file);
  if (run === undefined) {
    run = new Promise<Run>((resolve) => {
      const child = spawn(process.execPath, [join(BENCH, file), ...SMOKE_RUNS[file].args], {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH,
          TEST_NATS_URL,
          TEST_DATABASE_URL,
          NATS_URL: TEST_NATS_URL,
          DATABASE_URL: TEST_DATABASE_URL,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('exit', (code) => resolve({ code, output }));
    });
    runs.set(file, run);
  }
  return run;
}

interface BenchCell {
  floor: number;
  binding: number;
  ratio: number;
  floorCpuMs: number;
  bindingCpuMs: number;
  floorDbCpuMs: number;
  agentFloorDbCpuMs: number;
  bindingDbCpuMs: number;
  /** The second floor: node:http over a keep-alive Agent instead of fetch. */
  agentFloor: number;
  agentRatio: number;
  agentFloorCpuMs: number;
  runs: number;
}

interface BenchResult {
  platform: string;
  cells: Record<string, BenchCell & { concurrency: number; replicaCount: number }>;
  verdicts: { worstRatio: number; worstAgentRatio: number; scaling50: { gainVsFloor: number } };
  callsPerLifecycle: number;
  visiblePerLifecycle: number;
  stub: { url: string; floorEdits: number; bindingEdits: number };
}

async function bindingResults(): Promise<BenchResult[]> {
  const { code, output } = await smoke('binding.bench.mjs');
  expect({ code, tail: output.slice(-2_000) }).toMatchObject({ code: 0 });
  const line = output.split('\n').find((l) => l.startsWith('BENCH_JSON '));
  if (line === undefined) throw new Error(`no BENCH_JSON line in:\n${output.slice(-2_000)}`);
  return (JSON.parse(line.slice('BENCH_JSON '.length)) as { results: BenchResult[] }).results;
}

describe('P1 — every bench runs in a smoke mode', () => {
  beforeAll(() => {
    if (!existsSync(join(ROOT, 'dist', 'apps', 'slack-binding', 'main.js'))) {
      throw new Error('dist/ is missing: run `npm run build` before the bench smoke runs');
    }
  });

  it('P1 every bench under bench/ has a smoke run here', () => {
    const benches = readdirSync(BENCH).filter((f) => f.endsWith('.bench.mjs'));
    expect(benches.sort()).toEqual(
      [...Object.keys(SMOKE_RUNS), ...Object.keys(SMOKED_ELSEWHERE)].sort(),
    );
    for (const spec of Object.values(SMOKED_ELSEWHERE))
      expect(existsSync(join(ROOT, spec))).toBe(true);
  });

  it.each(Object.keys(SMOKE_RUNS))(
    'P1 %s finishes and prints its table',
    async (file) => {
      const { code, output } = await smoke(file);
      expect({ code, tail: output.slice(-2_000) }).toMatchObject({ code: 0 });
      for (const line of SMOKE_RUNS[file].table) expect(output).toMatch(line);
    },
    240_000,
  );
});

describe('P2–P4 — the binding bench computes what it claims', () => {
  it('P2 the floor and the binding call the same bare stub, for every platform', async () => {
    const results = await bindingResults();
    expect(results.map((r) => r.platform)).toEqual(['slack', 'discord', 'mattermost']);
    for (const { stub, cells } of results) {
      const measured = Object.values(cells).reduce((n, c) => n + c.runs, 0);
      // Every floor run (both floors) and every binding run edited through this one stub.
      expect(stub.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(stub.floorEdits).toBeGreaterThanOrEqual(2 * measured);
      expect(stub.bindingEdits).toBeGreaterThanOrEqual(measured);
    }
  }, 240_000);

  it('P3 each cell reports outputs/s and CPU ms per output for the binding and both floors, and their ratios', async () => {
    for (const { cells, callsPerLifecycle, visiblePerLifecycle } of await bindingResults()) {
      expect(Object.keys(cells).sort()).toEqual(['0:1', '0:2', '50:1', '50:2']);
      for (const cell of Object.values(cells)) {
        expect(cell.floor).toBeGreaterThan(0);
        expect(cell.binding).toBeGreaterThan(0);
        expect(cell.ratio).toBeCloseTo(cell.binding / cell.floor, 9);
        expect(cell.agentFloor).toBeGreaterThan(0);
        expect(cell.agentRatio).toBeCloseTo(cell.binding / cell.agentFloor, 9);
        expect(cell.agentFloorCpuMs).toBeGreaterThanOrEqual(0);
        expect(cell.floorCpuMs).toBeGreaterThanOrEqual(0);
        expect(cell.bindingCpuMs).toBeGreaterThan(0);
        // The database's share is read for each (smoke counts are below /proc's 10 ms tick,
        // so a figure may be 0; bench-figures.spec.ts checks the arithmetic).
        for (const db of [cell.bindingDbCpuMs, cell.floorDbCpuMs, cell.agentFloorDbCpuMs]) {
          expect(Number.isFinite(db) && db >= 0).toBe(true);
        }
        expect(cell.concurrency).toBe(16 * cell.replicaCount);
      }
      expect(callsPerLifecycle).toBe(visiblePerLifecycle);
    }
  }, 240_000);

  it('P4 the scaling verdict compares the binding’s 1 → 2 replicas with the floor’s 16 → 32', async () => {
    for (const { cells, verdicts } of await bindingResults()) {
      const bindingGain = cells['50:2'].binding / cells['50:1'].binding;
      const floorGain = cells['50:2'].floor / cells['50:1'].floor;
      expect(verdicts.scaling50.gainVsFloor).toBeCloseTo(bindingGain / floorGain, 9);
      expect(verdicts.worstRatio).toBe(Math.min(...Object.values(cells).map((c) => c.ratio)));
      expect(verdicts.worstAgentRatio).toBe(
        Math.min(...Object.values(cells).map((c) => c.agentRatio)),
      );
    }
  }, 240_000);
});
