import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

function stress(...args: string[]) {
  return spawnSync(process.execPath, [join(root, 'scripts', 'stress.mjs'), ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 30_000,
  });
}

/** `npm run test:stress` itself: which tests it would run, without running them. */
describe('R8 — the stress runner picks its tests by id', () => {
  it('R8 selects a spec file for every crash, recovery, replica and fault id it stresses', () => {
    const listed = stress('--list');
    expect(listed.status).toBe(0);
    const files = listed.stdout
      .split('\n')
      .filter((line) => line.startsWith('  '))
      .map((line) => line.trim());
    for (const expected of [
      'test/session-service/restart-recovery.spec.ts',
      'test/session-service/crash-recovery.spec.ts',
      'test/session-service/shutdown.spec.ts',
      'test/session-service/standby.spec.ts',
      'test/contract/binding-contract.spec.ts',
      'test/process/publish-before-answer.spec.ts',
      'test/faults/infrastructure-faults.spec.ts',
      'test/faults/nats-cluster.spec.ts',
    ]) {
      expect(files).toContain(expected);
    }
  });

  it('R8 refuses arguments it cannot use, naming them', () => {
    expect(stress('--runs', '0').stderr).toMatch(/--runs must be a positive integer/);
    expect(stress('--ids', 'not ids').stderr).toMatch(/--ids must look like/);
    expect(stress('--ids', 'Z99', '--list').stderr).toMatch(/no spec names a test Z99/);
  });
});
