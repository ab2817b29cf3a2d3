import { createDataSource } from '@tollgate/persistence';
import { deriveSessionId, Subjects } from '@tollgate/protocol';
import { HandleCommand } from '../../apps/session-service/src/commands/handle-command.usecase';
import { SESSION_SERVICE_MIGRATIONS } from '@tollgate/session-read-model';
import {
  PartiallyCommittedDecision,
  SessionStore,
} from '../../apps/session-service/src/journal/session-store';
import { ScriptedModelClient } from '../../apps/session-service/src/model/scripted-model.client';
import { noToolGrants } from '../../apps/session-service/src/session/domain/tool-grants.port';
import { defaultToolPolicy } from '../../apps/session-service/src/tools/tool-policy';
import { builtInTools } from '../../apps/session-service/src/tools/tool-registry';
import { freshConversation, response, userMessage } from '../support/commands';
import { withClient } from '../support/database';
import { SessionServiceFixture } from '../support/session-service.fixture';
import { waitFor } from '../support/wait-for';

const SESSIONS = 1_000;
/** More seeding decisions at once would only queue on the seeding pool. */
const SEEDERS = 8;

/** The crash `TOLLGATE_FAILPOINT=approval-resolved` stands for, in the seeding process. */
class CrashedAfterCommit extends Error {}

/**
 * (process) D2: a restart finds far more turns left in `Redriving` than the service has pooled
 * connections (40). Each must read its batch's context without a second connection while its
 * first holds the session's lock, or the pool deadlocks into timeouts and retries.
 */
describe('D2 recovery of turns left in Redriving (process)', () => {
  let service: SessionServiceFixture;

  beforeAll(async () => {
    service = await SessionServiceFixture.create('redrive');
    await service.stop();
  }, 60_000);

  afterAll(async () => {
    await service.dispose();
  });

  it('D2 a restart with 1,000 sessions in Redriving recovers every one without a timeout', async () => {
    const sessionIds = await seedRedrivingSessions(service, SESSIONS);
    const inRedriving = await withClient(async (client) => {
      const { rows } = await client.query<{ n: string }>(
        `SELECT count(*) AS n FROM "${service.database.schema}".sessions_in_flight`,
      );
      return Number(rows[0].n);
    });
    expect(inRedriving).toBe(SESSIONS);

    const started = Date.now();
    const restarted = await service.start();
    const completed = await waitFor(
      `${SESSIONS} redriven turns to complete`,
      async () => {
        const done = await withClient(async (client) => {
          const { rows } = await client.query<{ n: string }>(
            `SELECT count(*) AS n FROM "${service.database.schema}".session_events
             WHERE type = 'TurnCompleted' AND session_id = ANY($1::text[])`,
            [sessionIds],
          );
          return Number(rows[0].n);
        });
        if (done < SESSIONS) throw new Error(`${done} of ${SESSIONS} completed`);
        return done;
      },
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    const ms = Date.now() - started;
    process.stdout.write(`D2 recovered ${completed} Redriving sessions in ${ms} ms\n`);

    // Named lines, not a bare boolean: a failure shows what went wrong.
    const storm = restarted
      .output()
      .split('\n')
      .filter((line) => /retrying after a failure|timeout exceeded|session quarantined/.test(line));
    expect(storm).toEqual([]);
    await withClient(async (client) => {
      const schema = service.database.schema;
      const left = await client.query(`SELECT session_id FROM "${schema}".sessions_in_flight`);
      expect(left.rows).toEqual([]);
      const quarantined = await client.query(
        `SELECT session_id FROM "${schema}".quarantined_sessions`,
      );
      expect(quarantined.rows).toEqual([]);
      // The approved call ran once per session, after the restart, and was answered.
      const runs = await client.query<{ n: string }>(
        `SELECT count(*) AS n FROM "${schema}".session_events
         WHERE type = 'ToolCallRecorded' AND data->>'outcome' = 'ok'`,
      );
      expect(Number(runs.rows[0].n)).toBe(SESSIONS);
    });
  }, 400_000);
});

/**
 * Each session asks for a gated tool and parks, then its approval is decided and the process
 * "dies" right after the `approval-resolved` checkpoint commits, as a SIGKILL there would
 * leave it: ToolApprovalResolved journaled, the turn Redriving, nothing run.
 */
async function seedRedrivingSessions(
  service: SessionServiceFixture,
  count: number,
): Promise<string[]> {
  const dataSource = createDataSource({
    url: service.database.url,
    schema: service.database.schema,
    migrations: SESSION_SERVICE_MIGRATIONS,
    applicationName: 'd2-seed',
    poolSize: SEEDERS,
  });
  await dataSource.initialize();
  const deps = {
    model: new ScriptedModelClient(),
    tools: builtInTools(),
    policy: defaultToolPolicy(),
    grants: noToolGrants,
  };
  const subjects = new Subjects(service.prefix);
  const channel = `outbox_${service.database.schema}`;
  const parking = new HandleCommand(new SessionStore(dataSource, subjects, channel), deps);
  const crashing = new HandleCommand(
    new SessionStore(dataSource, subjects, channel, {
      failpoint: (point) => {
        if (point === 'approval-resolved') throw new CrashedAfterCommit(point);
      },
    }),
    deps,
  );
  const sessionIds: string[] = [];
  try {
    let next = 0;
    const seeder = async () => {
      while (next < count) {
        next += 1;
        const conversation = freshConversation();
        sessionIds.push(deriveSessionId(conversation));
        await parking.execute(
          userMessage(conversation, '!write_note {"text":"after the restart"}'),
        );
        const answered = crashing.execute(response(conversation, 'call_2_1', 'approve_once'));
        await expect(answered).rejects.toBeInstanceOf(PartiallyCommittedDecision);
      }
    };
    await Promise.all(Array.from({ length: SEEDERS }, seeder));
  } finally {
    await dataSource.destroy();
  }
  return sessionIds;
}
