import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { streamNames } from '@tollgate/protocol';
import { connectTestNats } from '../support/nats';
import { OwnNatsCluster } from '../support/own-nats-cluster';
import { OwnPostgresServer } from '../support/own-postgres-server';
import { expectConverged, runPromptFlow } from '../support/prompt-flow';
import { uniqueToken } from '../support/unique';
import { WholeSystem } from '../support/whole-system.fixture';

const ROOT = join(__dirname, '..', '..');
const PROMPTS = Number(process.env.TOLLGATE_FAULT_PROMPTS ?? 60);

/** `npm run provision -- --replicas 3` against the cluster, as an operator runs it. */
function provision(natsUrl: string, prefix: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'scripts', 'provision.mjs'), '--replicas', '3'],
      {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH,
          NATS_URL: natsUrl,
          TOLLGATE_SUBJECT_PREFIX: prefix,
          TOLLGATE_ACK_WAIT_MS: '3000',
          LOG_LEVEL: 'warn',
        },
        timeout: 60_000,
      },
      (error, _stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stderr }),
    );
  });
}

describe('R7 — the whole system on a three-node JetStream cluster (process)', () => {
  let cluster: OwnNatsCluster | undefined;
  let system: WholeSystem | undefined;
  let postgres: OwnPostgresServer | undefined;

  afterAll(async () => {
    await system?.dispose();
    await cluster?.dispose();
    await postgres?.dispose();
  });

  it(`R7 R3 streams on three local nodes; one node killed mid-flow: ${PROMPTS} prompts, 0 lost, 0 doubled`, async () => {
    cluster = await OwnNatsCluster.start();
    const prefix = uniqueToken('r7').slice(0, 24);
    expect(await provision(cluster.url, prefix)).toEqual({ code: 0, stderr: '' });
    const nc = await connectTestNats(cluster.url.split(','));
    try {
      const jsm = await jetstreamManager(nc);
      const names = streamNames(prefix);
      for (const stream of [names.commands, names.outputs, names.deadLetters]) {
        const info = await jsm.streams.info(stream);
        expect(info.config.num_replicas).toBe(3);
        expect(info.cluster?.replicas ?? []).toHaveLength(2);
      }
    } finally {
      await nc.close();
    }

    // A private database, so four services' pools leave the shared server's connections alone.
    postgres = await OwnPostgresServer.start();
    system = await WholeSystem.start({
      label: 'r7',
      prefix,
      natsUrl: cluster.url,
      databaseUrl: postgres.url,
    });
    const nodes = cluster;
    const figures = await runPromptFlow(system, {
      count: PROMPTS,
      timeoutMs: 120_000 + PROMPTS * 600,
      fault: () => nodes.kill(0),
    });
    process.stdout.write(
      `R7 figures ${JSON.stringify({ scenario: 'nats-node-kill', ...figures })}\n`,
    );
    await expectConverged(system, figures, PROMPTS);
  }, 600_000);
});
