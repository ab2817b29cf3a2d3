import { appendFileSync } from 'node:fs';
import { TEST_NATS_URL } from '../support/nats';
import { OwnNatsServer } from '../support/own-nats-server';
import { OwnPostgresServer } from '../support/own-postgres-server';
import { expectConverged, type FlowFigures, runPromptFlow } from '../support/prompt-flow';
import { PLATFORMS, WholeSystem } from '../support/whole-system.fixture';

/**
 * (process) R6: the whole system with prompts in flight on all three platforms while its
 * infrastructure fails under it. TOLLGATE_FAULT_PROMPTS sets how many (`npm run bench:faults`
 * runs 1 000); the figures go to stdout and, with TOLLGATE_FAULT_FIGURES, to that file. Each
 * runs on a private PostgreSQL: seven services' pools would crowd the shared server's
 * max_connections, which other suites running beside these need.
 */
const PROMPTS = Number(process.env.TOLLGATE_FAULT_PROMPTS ?? 60);
const FLOW_TIMEOUT_MS = 120_000 + PROMPTS * 600;
/** The flow's own deadline must come first: it reports what did not converge, jest would not. */
const TEST_TIMEOUT_MS = FLOW_TIMEOUT_MS + 180_000;
/** TOLLGATE_FAULT_DURING_ASKS=0: the fault waits until every ask was taken. */
const FAULT_DURING_ASKS = process.env.TOLLGATE_FAULT_DURING_ASKS !== '0';

function report(scenario: string, figures: FlowFigures): void {
  const line = JSON.stringify({ scenario, ...figures });
  process.stdout.write(`R6 figures ${line}\n`);
  if (process.env.TOLLGATE_FAULT_FIGURES) {
    appendFileSync(process.env.TOLLGATE_FAULT_FIGURES, `${line}\n`);
  }
}

describe('R6 — infrastructure faults with prompts in flight (process)', () => {
  let system: WholeSystem | undefined;
  let nats: OwnNatsServer | undefined;
  let postgres: OwnPostgresServer | undefined;

  afterEach(async () => {
    await system?.dispose();
    await nats?.dispose();
    await postgres?.dispose();
    system = nats = postgres = undefined;
  });

  it(
    `R6 NATS restarted mid-flow: ${PROMPTS} prompts over three platforms, 0 lost, 0 doubled`,
    async () => {
      nats = await OwnNatsServer.start();
      postgres = await OwnPostgresServer.start();
      system = await WholeSystem.start({
        label: 'r6nats',
        natsUrl: nats.url,
        databaseUrl: postgres.url,
      });
      const server = nats;
      const figures = await runPromptFlow(system, {
        count: PROMPTS,
        timeoutMs: FLOW_TIMEOUT_MS,
        faultDuringAsks: FAULT_DURING_ASKS,
        fault: async () => {
          await server.stop();
          await server.restart();
        },
      });
      report('nats-restart', figures);
      await expectConverged(system, figures, PROMPTS);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    `R6 PostgreSQL restarted mid-flow: ${PROMPTS} prompts over three platforms, 0 lost, 0 doubled`,
    async () => {
      postgres = await OwnPostgresServer.start();
      system = await WholeSystem.start({
        label: 'r6pg',
        natsUrl: TEST_NATS_URL,
        databaseUrl: postgres.url,
        // The session service exits when its leader lock's connection dies; it comes back.
        supervise: true,
      });
      const server = postgres;
      const figures = await runPromptFlow(system, {
        count: PROMPTS,
        timeoutMs: FLOW_TIMEOUT_MS,
        faultDuringAsks: FAULT_DURING_ASKS,
        fault: async () => {
          await server.crash();
          await server.restart();
        },
      });
      report('postgres-restart', { ...figures });
      await expectConverged(system, figures, PROMPTS);
      const session = system.members.find((m) => m.service === 'session-service')!;
      expect(session.restarts).toBeGreaterThanOrEqual(1);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    `R6 one replica of each binding SIGKILLed mid-batch: ${PROMPTS} prompts, 0 lost, 0 doubled`,
    async () => {
      postgres = await OwnPostgresServer.start();
      system = await WholeSystem.start({
        label: 'r6kill',
        natsUrl: TEST_NATS_URL,
        databaseUrl: postgres.url,
        bindingReplicas: 2,
      });
      const running = system;
      const figures = await runPromptFlow(system, {
        count: PROMPTS,
        timeoutMs: FLOW_TIMEOUT_MS,
        faultDuringAsks: FAULT_DURING_ASKS,
        fault: async () => {
          await Promise.all(
            PLATFORMS.map((platform) => running.kill(running.bindingMembers(platform)[1])),
          );
        },
      });
      report('binding-replica-kill', figures);
      await expectConverged(system, figures, PROMPTS);
    },
    TEST_TIMEOUT_MS,
  );
});
