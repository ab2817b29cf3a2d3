// Orders the suites longest first even on a machine that never ran them. Jest does so from its
// cache of last run's durations, but CI and a newcomer start with no cache, and jest then
// orders by file size: a 150 s fuzz storm in a small file could start last and run alone on
// one worker for its whole length while the other sat idle, minutes on a 20-minute budget.
// The seconds below are one full run's on the 2-core machine (npx jest, 2026-12-03); only
// their order matters, and a suite missing here still runs, where jest would put it.
const { relative } = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const KNOWN_SECONDS = {
  'test/fuzz/inbound-hostile.spec.ts': 148,
  'test/fuzz/approval-api-hostile.spec.ts': 123,
  'test/process/contract-external.spec.ts': 82,
  'test/contract/binding-contract.spec.ts': 76,
  'test/sandbox/sandbox-page.spec.ts': 66,
  'test/sandbox/npm-start.spec.ts': 65,
  'test/faults/infrastructure-faults.spec.ts': 64,
  'test/journeys/api-http-journeys.spec.ts': 49,
  'test/bench/bench-smoke.spec.ts': 47,
  'test/session-service/redriving-recovery.spec.ts': 37,
  'test/fuzz/mcp-gateway-hostile.spec.ts': 37,
  'test/journeys/mcp-gateway-journeys.spec.ts': 35,
  'test/sandbox/npm-start-newcomer.spec.ts': 35,
  'test/session-service/standby.spec.ts': 34,
  'test/journeys/scoped-grants.spec.ts': 33,
  'test/faults/nats-cluster.spec.ts': 29,
  'test/sandbox/npm-start-shared-machine.spec.ts': 28,
  'test/journeys/approval-journeys.spec.ts': 28,
};

class SlowFirstSequencer extends Sequencer {
  sort(tests) {
    const seconds = (test) => {
      const cached = this.time(test);
      if (cached !== undefined) return cached / 1000;
      return KNOWN_SECONDS[relative(test.context.config.rootDir, test.path)];
    };
    // Jest's own order (failed first, then by cached time, else by size) breaks the ties.
    const base = super.sort([...tests]);
    const rank = new Map(base.map((test, i) => [test, i]));
    return base.sort((a, b) => {
      const failed = Number(this.hasFailed(b)) - Number(this.hasFailed(a));
      if (failed !== 0) return failed;
      const sa = seconds(a);
      const sb = seconds(b);
      if (sa !== undefined && sb !== undefined && sa !== sb) return sb - sa;
      if ((sa === undefined) !== (sb === undefined)) return sa === undefined ? 1 : -1;
      return rank.get(a) - rank.get(b);
    });
  }
}

module.exports = SlowFirstSequencer;
