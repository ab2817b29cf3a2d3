// bench:binding --perf's arithmetic (bench/perf-breakdown.js): which layer each perf sample
// belongs to, and CPU ms per output from sample counts. Samples written as `perf script -F
// tid,ip,sym,dso` prints them, leaf first.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const perf = require('../../bench/perf-breakdown.js') as {
  ORDER: string[];
  parsePerfScript(text: string): { tid: string; frames: { sym: string; kernel: boolean }[] }[];
  breakdown(
    samples: unknown[],
    options: { outputs: number; hz: number },
  ): {
    rows: { layer: string; ms: number; kernelMs: number }[];
    total: number;
    kernelMs: number;
    samples: number;
    top: { frame: string; ms: number }[];
  };
  formatBreakdowns(named: [string, unknown][]): string;
};

const frame = (sym: string, dso = '/tmp/perf-7.map'): string => `\t    7f00 ${sym} (${dso})`;
const sample = (tid: string, ...frames: string[]): string => [` ${tid} `, ...frames].join('\n');
const LOOP = [
  frame('Builtins_JSEntry', '/usr/bin/node'),
  frame('uv__io_poll', '/usr/bin/node'),
  frame('__libc_start_call_main', '/usr/lib/x86_64-linux-gnu/libc.so.6'),
];

/** One of each kind; the main thread (7) has the most samples. */
const TEXT = [
  // A socket write under node-postgres, in the kernel: PostgreSQL's, and kernel time.
  sample(
    '7',
    frame('[k] _raw_spin_unlock_irqrestore', '[kernel.kallsyms]'),
    frame('__GI___writev', '/usr/lib/x86_64-linux-gnu/libc.so.6'),
    frame('JS:*clearBuffer node:internal/streams/writable:744:21'),
    frame('JS:*_pulseQueryQueue /app/node_modules/pg/lib/client.js:616:19'),
    frame('JS:*claim /app/dist/libs/binding-core/journal/prompt-journal.repository.js:31:18'),
    ...LOOP,
  ),
  // The same write under node:http, called by the Slack SDK: HTTP's.
  sample(
    '7',
    frame('[k] tcp_sendmsg', '[kernel.kallsyms]'),
    frame('JS:*clearBuffer node:internal/streams/writable:744:21'),
    frame('JS:*_flushOutput node:_http_outgoing:1158:63'),
    frame('JS:* /app/node_modules/@slack/web-api/dist/WebClient.js:410:50'),
    ...LOOP,
  ),
  // The SDK's own code, in a function V8 knows no name for.
  sample(
    '7',
    frame('Builtins_LoadIC', '/usr/bin/node'),
    frame('JS:* /app/node_modules/@slack/web-api/dist/WebClient.js:410:50'),
    ...LOOP,
  ),
  // Tollgate's code, twice, one of them calling a native hash.
  sample(
    '7',
    frame('node::crypto::Hash::New', '/usr/bin/node'),
    frame('JS:*deriveSessionId /app/dist/libs/protocol/session-id.js:35:25'),
    ...LOOP,
  ),
  sample('7', frame('JS:*deriveSessionId /app/dist/libs/protocol/session-id.js:35:25'), ...LOOP),
  // A scavenge on the main thread, under pg: garbage collection wins.
  sample(
    '7',
    frame('v8::internal::Scavenger::ScavengeObject', '/usr/bin/node'),
    frame('JS:*_handleDataRow /app/node_modules/pg/lib/client.js:455:17'),
    ...LOOP,
  ),
  // Promise machinery only: Node.js and V8 otherwise.
  sample(
    '7',
    frame('Builtins_FulfillPromise', '/usr/bin/node'),
    frame('JS:*processTicksAndRejections node:internal/process/task_queues:67:35'),
    ...LOOP,
  ),
  // A read in libuv, no JS at all.
  sample('7', frame('[k] tcp_recvmsg', '[kernel.kallsyms]'), ...LOOP),
  // Another thread compiling.
  sample('9', frame('v8::internal::compiler::Pipeline', '/usr/bin/node')),
].join('\n\n');

describe('bench:binding --perf breakdown (perf-breakdown.js)', () => {
  const samples = perf.parsePerfScript(`${TEXT}\n`);
  // 10 Hz: each sample is 100 ms of CPU, over 10 outputs 10 ms per output.
  const result = perf.breakdown(samples, { outputs: 10, hz: 10 });
  const ms = (layer: string): number => result.rows.find((row) => row.layer === layer)?.ms ?? -1;
  const kernel = (layer: string): number =>
    result.rows.find((row) => row.layer === layer)?.kernelMs ?? -1;

  it('P3 reads every sample with its thread and its frames, leaf first', () => {
    expect(samples).toHaveLength(9);
    expect(samples[0].tid).toBe('7');
    expect(samples[0].frames[0]).toEqual({ sym: '[k] _raw_spin_unlock_irqrestore', kernel: true });
    expect(samples[0].frames[2]).toEqual({
      sym: 'JS:*clearBuffer node:internal/streams/writable:744:21',
      kernel: false,
    });
    expect(samples[8].tid).toBe('9');
  });

  it('P3 gives each sample to the first layer from its leaf up, a write to whoever wrote it', () => {
    expect(ms('PostgreSQL client (pg)')).toBeCloseTo(10);
    expect(kernel('PostgreSQL client (pg)')).toBeCloseTo(10);
    expect(ms('HTTP client (node:http, fetch)')).toBeCloseTo(10);
    expect(kernel('HTTP client (node:http, fetch)')).toBeCloseTo(10);
    expect(ms('platform SDK')).toBeCloseTo(10);
    expect(ms('Tollgate code')).toBeCloseTo(20);
    expect(kernel('Tollgate code')).toBeCloseTo(0);
    expect(ms('garbage collection (any thread)')).toBeCloseTo(10);
    expect(ms('Node.js and V8 otherwise (promises, timers, streams)')).toBeCloseTo(10);
    expect(ms('outside JS (libuv reads, kernel, runtime)')).toBeCloseTo(10);
    expect(ms('other threads (compiler, libuv pool)')).toBeCloseTo(10);
  });

  it('P3 adds up to every sample, each 1000 / hz ms, over the outputs', () => {
    expect(result.samples).toBe(9);
    expect(result.total).toBeCloseTo(90);
    expect(result.kernelMs).toBeCloseTo(30);
    expect(result.rows.map((row) => row.layer)).toEqual(perf.ORDER);
  });

  it('P3 names the heaviest JS functions of the main thread, natives they called included', () => {
    // deriveSessionId twice; clearBuffer twice, once under pg and once under node:http.
    expect(result.top.slice(0, 2)).toEqual(
      expect.arrayContaining([
        { frame: 'deriveSessionId libs/protocol/session-id.js:35:25', ms: expect.closeTo(20, 5) },
        { frame: 'clearBuffer node:internal/streams/writable:744:21', ms: expect.closeTo(20, 5) },
      ]),
    );
    expect(result.top.slice(2)).toEqual([
      { frame: '(anonymous) @slack/web-api/dist/WebClient.js:410:50', ms: expect.closeTo(10, 5) },
      {
        frame: 'processTicksAndRejections node:internal/process/task_queues:67:35',
        ms: expect.closeTo(10, 5),
      },
    ]);
    // The scavenge is GC's and the compiler thread is not the main one.
    expect(result.top.map((top) => top.frame).join()).not.toMatch(/_handleDataRow|Pipeline/);
  });

  it('P3 prints one column per process, each layer, the total and the heaviest functions', () => {
    const table = perf.formatBreakdowns([
      ['binding', result],
      ['agent floor', result],
    ]);
    expect(table).toMatch(
      /^CPU ms\/out by layer \(of which kernel\) +\| +binding \| +agent floor$/m,
    );
    expect(table).toMatch(/^Tollgate code +\| +20\.000 \(0\.000\) \| +20\.000 \(0\.000\)$/m);
    expect(table).toMatch(/^total, from perf +\| +90\.000 \(30\.000\) \|/m);
    expect(table).toMatch(/^binding: heaviest JS functions/m);
    expect(table).toMatch(/^ +20\.0000 +deriveSessionId libs\/protocol\/session-id\.js:35:25$/m);
  });
});
