import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { entryPointOf } from '../support/service-process';

/**
 * (process) The session bench runs in `npm test` with tiny counts, so it cannot rot between
 * the runs that measure. Its figures are not asserted: a shared CPU makes them noise here.
 */
describe('P1 bench:session smoke', () => {
  it('P1 bench:session smoke runs every phase against the built service and prints its table', async () => {
    entryPointOf('session-service');
    const output = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        // Two restarts: the --recovery-runs loop (stop, empty the stream, start) runs too;
        // a short lull before the second conversations run takes the --lull-ms path.
        [
          join(__dirname, '..', '..', 'bench', 'session-service.bench.mjs'),
          '--smoke',
          '--recovery-runs',
          '2',
          '--lull-ms',
          '100',
        ],
        { timeout: 120_000, maxBuffer: 10_000_000 },
        (error, stdout, stderr) =>
          error ? reject(new Error(`${error.message}\n${stdout}\n${stderr}`)) : resolve(stdout),
      );
    });
    for (const line of [
      /recovery: 20 refreshes published at \d+ per second \(median of 2 restarts: \d+, \d+\)/,
      /click -> Resolved \(5 clicks\): p50 [\d.]+ ms, p99 [\d.]+ ms/,
      /idle RSS holding 20 parked sessions: \d+ MB, the lowest in 1000 ms idle after recovery \(right after it: \d+ MB\)/,
      /click -> Resolved on a \d+-event session: p50 [\d.]+ ms, p99 [\d.]+ ms; fresh session: p50 [\d.]+ ms/,
      /10 conversations, one message each, model answering after 200 ms: [\d.]+ turns\/s, .*peak \d+ model calls at once.*; service CPU \d+\.\d\d ms\/turn, database CPU \d+\.\d\d ms\/turn on [1-9]\d* connections/,
      /20 conversations, one message each, model answering after 200 ms, after 100 ms idle: .*peak \d+ model calls at once.*; service CPU \d+\.\d\d ms\/turn, database CPU \d+\.\d\d ms\/turn on [1-9]\d* connections/,
      /RSS with 20 turns in flight: peak \d+ MB/,
    ]) {
      expect(output).toMatch(line);
    }
    // The bench's own 120 s bound above decides; jest's 60 s default would cut a loaded run
    // (21 s on a quiet two-core machine) short first.
  }, 180_000);
});
