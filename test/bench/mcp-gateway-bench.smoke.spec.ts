import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { GATEWAY_ENTRY } from '../support/mcp-gateway';

/**
 * (process) The gateway bench runs in `npm test` with tiny counts, so it cannot rot between the
 * runs that measure. Its figures are printed, never asserted: a shared CPU makes them noise here.
 */
describe('M7 bench:mcp-gateway smoke', () => {
  it('M7 bench:mcp-gateway smoke measures allowed-call overhead at concurrency 1 and 16 and held calls per GiB', async () => {
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
    for (const concurrency of [1, 16]) {
      expect(output).toMatch(
        new RegExp(
          `concurrency ${concurrency}: direct p50 [\\d.]+ ms, p99 [\\d.]+ ms; through the gateway p50 [\\d.]+ ms, p99 [\\d.]+ ms; added p50 -?[\\d.]+ ms`,
        ),
      );
    }
    expect(output).toMatch(/held calls: 20 held \(20 approvals asked\), .* held calls per GiB/);
  });
});
