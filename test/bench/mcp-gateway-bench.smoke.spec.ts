import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { GATEWAY_ENTRY } from '../support/mcp-gateway';

/**
 * (process) The gateway bench runs in `npm test` with tiny counts, so it cannot rot between the
 * runs that measure. Its figures are printed, never asserted: a shared CPU makes them noise here.
 */
describe('M7 bench:mcp-gateway smoke', () => {
  it('M7 bench:mcp-gateway smoke measures allowed-call overhead at concurrency 1 and 16 (light clients, a floor proxy and the SDK Client) and held calls per GiB', async () => {
    expect(existsSync(GATEWAY_ENTRY)).toBe(true);
    const output = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        [join(__dirname, '..', '..', 'bench', 'mcp-gateway.bench.mjs'), '--smoke'],
        { timeout: 120_000, maxBuffer: 10_000_000 },
        (error, stdout, stderr) =>
          error ? reject(new Error(`${error.message}\n${stdout}\n${stderr}`)) : resolve(stdout),
      );
    });
    const ms = '-?[\\d.]+ ms';
    // Each path warms up at its own concurrency before it is measured (a few calls in smoke mode).
    expect(output).toMatch(
      /allowed call overhead \(40 calls of fs read_text_file each, after 4 at the same concurrency to warm up;/,
    );
    for (const concurrency of [1, 16]) {
      // The target row (the light clients), its CPU per process, its stdio twin and the floor
      // proxy's row, then the SDK Client's row on the same paths.
      expect(output).toMatch(
        new RegExp(
          `light clients, concurrency ${concurrency}: direct p50 ${ms}, p99 ${ms}; through the gateway \\(HTTP\\) p50 ${ms}, p99 ${ms}; added p50 ${ms}, p99 ${ms}\n` +
            `    CPU per call: direct: agent ${ms}, upstream ${ms}; through the gateway \\(HTTP\\): agent ${ms}, gateway ${ms}, upstream ${ms}; .*\n` +
            `    through the gateway over stdio: p50 ${ms}, p99 ${ms}; added p50 ${ms}, p99 ${ms}; CPU per call: agent ${ms}, gateway ${ms}, upstream ${ms}\n` +
            `    through the floor proxy \\(HTTP\\): p50 ${ms}, p99 ${ms}; added p50 ${ms}, p99 ${ms}; CPU per call: agent ${ms}, proxy ${ms}, upstream ${ms}`,
        ),
      );
      expect(output).toMatch(
        new RegExp(
          `SDK Client, concurrency ${concurrency}: direct p50 ${ms}, p99 ${ms}; through the gateway \\(HTTP\\) p50 ${ms}, p99 ${ms}; added p50 ${ms}`,
        ),
      );
    }
    expect(output).toMatch(
      /held calls: 20 of 20 calls held \(20 approvals asked\), .* held calls per GiB/,
    );
    // Beyond execFile's own 120 s: a bench that hangs fails with its output, not jest's timeout.
  }, 150_000);
});
