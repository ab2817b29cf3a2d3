// Where a process's CPU goes, by layer, from Linux perf's samples (bench:binding --perf).
//
// Why not V8's --cpu-prof: it samples the main thread by signal and counts wall time inside a
// native call, so a write to a loopback socket showed as 29 % of the binding's busy samples
// while the process spent 16 % of its CPU in the kernel at all; and it sees no other thread.
// perf's cpu-clock counts on-CPU time of every thread, kernel included, and with
// --perf-basic-prof it names V8's JIT frames, so the layers below add up to the process's CPU.
//
// Each sample goes to one layer: garbage collection wherever it appears in the stack, then
// the first frame from the leaf up that belongs to a layer, so a socket write under
// node-postgres is PostgreSQL's and the same write under node:http is HTTP's. Node's own
// streams, net and timers belong to no layer and fold into whoever called them.
//
// CommonJS, so the .mjs bench and the jest suite (test/bench/perf-breakdown.spec.ts) load the
// same file. Also a command: node bench/perf-breakdown.js FILE.data --outputs N
'use strict';

const { execFileSync } = require('node:child_process');
const { readFileSync, writeFileSync } = require('node:fs');

const GC = /Scavenge|MarkCompact|ConcurrentMarking|Sweeper|GCTracer|Heap::CollectGarbage|MinorMS/;

/** The layers, in the order the table shows them; the first whose frame is nearest the leaf wins. */
const LAYERS = Object.freeze([
  ['PostgreSQL client (pg)', /node_modules\/pg(-pool|-protocol|-types|-connection-string)?\//],
  ['NATS client (@nats-io)', /node_modules\/@nats-io\//],
  [
    'platform SDK',
    /node_modules\/(@slack|@discordjs|@sapphire|@vladfrangu|@mattermost|discord-api-types|p-queue|p-retry|retry)\//,
  ],
  ['HTTP client (node:http, fetch)', /node:_http|node:https?[ :]|agent-fetch|undici/],
  ['validation (zod)', /node_modules\/zod\//],
  ['NestJS', /node_modules\/@nestjs\//],
  ['logs and metrics (pino, prom-client)', /node_modules\/(pino|prom-client|@opentelemetry)/],
  ['Tollgate code', /\/dist\/(apps|libs)\//],
  ['the floor’s own code', /\/bench\/[^ ]*\.mjs/],
]);
const JS_OTHER = 'Node.js and V8 otherwise (promises, timers, streams)';
const NO_JS = 'outside JS (libuv reads, kernel, runtime)';
const OTHER_THREADS = 'other threads (compiler, libuv pool)';
const GARBAGE = 'garbage collection (any thread)';
const ORDER = [...LAYERS.map(([name]) => name), GARBAGE, JS_OTHER, NO_JS, OTHER_THREADS];

/**
 * `perf script -F tid,ip,sym,dso` text → samples, each its thread id and frames from the
 * leaf up ({ sym, kernel }).
 */
function parsePerfScript(text) {
  const samples = [];
  let current;
  for (const line of text.split('\n')) {
    if (line.trim() === '') {
      if (current !== undefined) samples.push(current);
      current = undefined;
    } else if (current === undefined) {
      current = { tid: line.trim().split(/\s+/)[0], frames: [] };
    } else {
      // "\t    7f48fb9e565f JS:*claim /path/file.js:31:18 (/tmp/perf-8285.map)"
      const match = /^\s*[0-9a-f]+\s+(.*?)\s+\(([^()]*)\)\s*$/.exec(line);
      const sym = match === null ? line.trim() : match[1];
      const dso = match === null ? '' : match[2];
      current.frames.push({ sym, kernel: dso.includes('kernel') });
    }
  }
  if (current !== undefined) samples.push(current);
  return samples;
}

/** The layer one sample belongs to; `mainTid` is the process's main (JS) thread. */
function layerOf(sample, mainTid) {
  if (sample.frames.some((frame) => GC.test(frame.sym))) return GARBAGE;
  if (sample.tid !== mainTid) return OTHER_THREADS;
  let sawJs = false;
  for (const { sym } of sample.frames) {
    const js = sym.startsWith('JS:');
    sawJs ||= js;
    if (!js) continue;
    for (const [name, pattern] of LAYERS) if (pattern.test(sym)) return name;
  }
  return sawJs ? JS_OTHER : NO_JS;
}

/**
 * Milliseconds of CPU per output in each layer, and how much of it in the kernel: `hz` is the
 * sampling frequency perf was given (each sample stands for 1000 / hz ms of CPU).
 */
function breakdown(samples, { outputs, hz }) {
  const counts = new Map();
  for (const sample of samples) counts.set(sample.tid, (counts.get(sample.tid) ?? 0) + 1);
  const mainTid = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
  const perSample = 1000 / hz / outputs;
  const layers = new Map(ORDER.map((name) => [name, { ms: 0, kernelMs: 0 }]));
  for (const sample of samples) {
    const layer = layers.get(layerOf(sample, mainTid));
    layer.ms += perSample;
    if (sample.frames[0]?.kernel) layer.kernelMs += perSample;
  }
  const rows = ORDER.map((name) => ({ layer: name, ...layers.get(name) }));
  const total = rows.reduce((sum, row) => sum + row.ms, 0);
  const kernelMs = rows.reduce((sum, row) => sum + row.kernelMs, 0);
  return {
    rows,
    total,
    kernelMs,
    samples: samples.length,
    top: heaviestFrames(samples, mainTid, perSample),
  };
}

/**
 * The main thread's heaviest JS functions: each sample counted to its innermost JS frame, so
 * a function's figure holds the native code it called (a socket write, a hash) but not the JS
 * it called. GC is left out: it is the allocations', not one function's.
 */
function heaviestFrames(samples, mainTid, perSample, count = 10) {
  const frames = new Map();
  for (const sample of samples) {
    if (sample.tid !== mainTid || sample.frames.some((frame) => GC.test(frame.sym))) continue;
    const js = sample.frames.find((frame) => frame.sym.startsWith('JS:'));
    if (js === undefined) continue;
    // "JS:*name /abs/path/node_modules/pkg/file.js:1:2" → "name pkg/file.js:1:2"; V8 leaves
    // an anonymous function's name empty.
    const [, name, where] = /^JS:[*~^+-]?(\S*)\s*(.*)$/.exec(js.sym);
    const place = where.replace(/^\S*?\/(node_modules|dist)\//, '');
    const frame = `${name === '' ? '(anonymous)' : name} ${place}`.trim();
    frames.set(frame, (frames.get(frame) ?? 0) + perSample);
  }
  return [...frames]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([frame, ms]) => ({ frame, ms }));
}

/**
 * Reads a perf.data file with `perf script` and breaks it down; the samples are also kept as
 * text beside it (FILE.txt), named while V8's /tmp/perf-<pid>.map still exists, so they can be
 * read again (`node bench/perf-breakdown.js FILE.txt --outputs N`) after the bench removed it.
 */
function breakdownOfFile(file, { outputs, hz }) {
  let text;
  if (file.endsWith('.txt')) {
    text = readFileSync(file, 'utf8');
  } else {
    text = execFileSync('perf', ['script', '-i', file, '-F', 'tid,ip,sym,dso'], {
      encoding: 'utf8',
      maxBuffer: 1 << 30,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    writeFileSync(`${file}.txt`, text);
  }
  return breakdown(parsePerfScript(text), { outputs, hz });
}

/** The table: one column per named breakdown, ms of CPU per output (of which in the kernel). */
function formatBreakdowns(named) {
  const cell = (r) => `${r.ms.toFixed(3)} (${r.kernelMs.toFixed(3)})`.padStart(22);
  const width = Math.max(...ORDER.map((name) => name.length));
  const lines = [
    `${'CPU ms/out by layer (of which kernel)'.padEnd(width)} | ` +
      named.map(([name]) => name.padStart(22)).join(' | '),
  ];
  for (let i = 0; i < ORDER.length; i += 1) {
    lines.push(`${ORDER[i].padEnd(width)} | ${named.map(([, b]) => cell(b.rows[i])).join(' | ')}`);
  }
  lines.push(
    `${'total, from perf'.padEnd(width)} | ` +
      named.map(([, b]) => cell({ ms: b.total, kernelMs: b.kernelMs })).join(' | '),
  );
  for (const [name, b] of named) {
    lines.push(
      '',
      `${name}: heaviest JS functions, CPU ms/out (innermost JS frame, with the native code it called)`,
    );
    for (const { frame, ms } of b.top) lines.push(`${ms.toFixed(4).padStart(8)}  ${frame}`);
  }
  return lines.join('\n');
}

module.exports = {
  LAYERS,
  ORDER,
  parsePerfScript,
  layerOf,
  breakdown,
  breakdownOfFile,
  formatBreakdowns,
};

if (require.main === module) {
  const [file, flag, outputs, hzFlag, hz] = process.argv.slice(2);
  if (file === undefined || flag !== '--outputs' || !(Number(outputs) > 0)) {
    console.error('usage: node bench/perf-breakdown.js FILE.data --outputs N [--hz 999]');
    process.exit(2);
  }
  const frequency = hzFlag === '--hz' ? Number(hz) : 999;
  const result = breakdownOfFile(file, { outputs: Number(outputs), hz: frequency });
  console.log(formatBreakdowns([[file.split('/').pop(), result]]));
}
