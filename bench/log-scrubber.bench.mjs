// The cost of scrubbing secrets from every log line (libs/service-runtime secret-scrubber):
// the service logger as built (configured secrets + secret shapes on every finished line)
// against the same pino logger without the scrub and the error serializer (path redaction
// only, as before), on lines like the services write, and the scrub alone per line. It
// reports; it asserts nothing.
//
//   npm run build --silent && node bench/log-scrubber.bench.mjs [--lines 200000]
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

const require = createRequire(import.meta.url);
const pino = require('pino');
const { createLogger } = require('../dist/libs/service-runtime/logger.js');
const { createSecretScrubber } = require('../dist/libs/service-runtime/secret-scrubber.js');

const { values } = parseArgs({
  options: { lines: { type: 'string' }, smoke: { type: 'boolean', default: false } },
});
// --smoke: tiny counts, so `npm test` proves the bench still runs (test/bench).
const lines = Number(values.lines ?? (values.smoke ? 2_000 : 200_000));

// What a binding's config holds: bot token, signing secrets, DB and NATS passwords.
const secrets = [
  'xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOpQrStUvWx',
  '8f14e45fceea167a5a36dedd4bea2543',
  'MTA5ODc2NTQzMjEwOTg3NjU0.GhIjKl.abcdefghijklmnopqrstuvwxyz0123456789AB',
  'contract-mattermost-action-secret',
  'db-password-0f8a7c',
  'nats-password-3b2e1d',
];
const sink = { write() {} };
const fields = {
  component: 'binding-core',
  platform: 'slack',
  sessionId: 'slack:T0123:C0456:1700000000.000100',
  callId: 'call_9f8e7d6c5b4a',
  kind: 'text',
  streamSeq: 123456,
};
const error = Object.assign(new Error('Service Unavailable'), {
  status: 503,
  method: 'POST',
  url: 'http://127.0.0.1:3999/api/v10/webhooks/1100000000000000001/aW50ZXJhY3Rpb246MTIzNDU2Nzg5MDpxd2VydHl1aW9w/messages/@original',
});

function run(logger) {
  const start = performance.now();
  for (let i = 0; i < lines; i += 1) {
    if (i % 20 === 0)
      logger.warn({ err: error }, 'a Discord interaction failed after its acknowledgement');
    else logger.info(fields, 'output delivered');
  }
  return ((performance.now() - start) * 1e6) / lines;
}

const REDACTED_PATHS = [
  'password',
  'token',
  'secret',
  'authorization',
  '*.password',
  '*.token',
  '*.secret',
  '*.authorization',
  'headers.authorization',
  'headers["x-slack-signature"]',
];
const plain = () =>
  pino(
    {
      level: 'info',
      base: { service: 'bench' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    sink,
  );
const scrubbed = () => createLogger('bench', 'info', { secrets, destination: sink });

// Warm up both, then alternate so both see the same machine.
run(plain());
run(scrubbed());
const rounds = [];
for (let round = 0; round < 5; round += 1) rounds.push([run(plain()), run(scrubbed())]);
const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const plainNs = median(rounds.map((r) => r[0]));
const scrubbedNs = median(rounds.map((r) => r[1]));

const scrub = createSecretScrubber(secrets);
const sample = [];
const capture = pino(
  { base: { service: 'bench' }, serializers: { err: pino.stdSerializers.err } },
  {
    write: (line) => sample.push(line),
  },
);
capture.info(fields, 'output delivered');
capture.warn({ err: error }, 'a Discord interaction failed after its acknowledgement');
const perLine = sample.map((line) => {
  const start = performance.now();
  for (let i = 0; i < lines; i += 1) scrub(line);
  return { bytes: line.length, ns: ((performance.now() - start) * 1e6) / lines };
});

console.log(`lines per round: ${lines} (1 in 20 an error with a webhook URL), median of 5 rounds`);
console.log(`path redaction only (the logger before): ${plainNs.toFixed(0)} ns/line`);
console.log(`the service logger now (+ err serializer + scrub): ${scrubbedNs.toFixed(0)} ns/line`);
console.log(`added per line: ${(scrubbedNs - plainNs).toFixed(0)} ns`);
for (const { bytes, ns } of perLine)
  console.log(`scrub alone, ${bytes}-byte line: ${ns.toFixed(0)} ns`);
