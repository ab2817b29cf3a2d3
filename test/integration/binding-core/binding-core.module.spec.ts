import type { INestMicroservice } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  BindingCoreModule,
  bindingMigrations,
  bindingProvisionPlan,
  defaultLeaseMs,
  ForwardClick,
  HasSession,
  PLATFORM_ADAPTER,
  promptRefOf,
} from '@tollgate/binding-core';
import { connectNats, JetStreamPublisher, type ManagedNatsConnection } from '@tollgate/messaging';
import {
  bindingDurable,
  encodeMessage,
  outputSubject,
  streamNames,
  Subjects,
} from '@tollgate/protocol';
import {
  type BaseConfig,
  ConsumerHost,
  InfrastructureModule,
  JetStreamConsumers,
  JetStreamSettlementFilter,
  JetStreamTransport,
  loadConfig,
  ReadinessService,
  ServiceRuntimeModule,
} from '@tollgate/service-runtime';
import { jetstream } from '@nats-io/jetstream';
import { bob } from '../../support/commands';
import { createTestSchema } from '../../support/database';
import { deleteStreams, TEST_NATS_URL } from '../../support/nats';
import { uniqueToken } from '../../support/unique';
import { waitFor } from '../../support/wait-for';
import { testLogger } from './binding-harness';
import { promptOutputs } from './prompt-outputs';
import { RecordingPlatformAdapter } from './recording-platform.adapter';

/** The Nest wiring a binding app uses: three modules, and the consumer runs by itself. */
describe('BindingCoreModule', () => {
  const schema = createTestSchema('bcoremod');
  const prefix = uniqueToken('bcoremod').slice(0, 24);
  const adapter = new RecordingPlatformAdapter('slack');
  let config: BaseConfig;
  let app: INestMicroservice;
  let nats: ManagedNatsConnection;

  beforeAll(async () => {
    config = loadConfig(
      'slack-binding',
      {
        DATABASE_URL: schema.url,
        DATABASE_SCHEMA: schema.schema,
        NATS_URL: TEST_NATS_URL,
        TOLLGATE_SUBJECT_PREFIX: prefix,
        TOLLGATE_ACK_WAIT_MS: '2000',
        TOLLGATE_RETRY_BASE_MS: '50',
        TOLLGATE_DRAIN_MS: '1000',
      },
      {},
    );
    const moduleRef = await Test.createTestingModule({
      imports: [
        ServiceRuntimeModule.forRoot(config, testLogger),
        InfrastructureModule.forRoot({
          provisionPlan: bindingProvisionPlan(config, 'slack'),
          migrations: bindingMigrations(),
        }),
        BindingCoreModule.forRoot({
          platform: 'slack',
          adapter: { provide: PLATFORM_ADAPTER, useValue: adapter },
        }),
      ],
    }).compile();
    // As bootstrapService does: the binding's consumer is the JetStream transport's.
    app = moduleRef.createNestMicroservice({
      strategy: new JetStreamTransport(
        moduleRef.get(ConsumerHost),
        moduleRef.get(JetStreamConsumers),
      ),
    });
    app.useGlobalFilters(new JetStreamSettlementFilter());
    await app.listen();
    nats = await connectNats({ servers: TEST_NATS_URL, name: 'bcoremod', logger: testLogger });
  });

  afterAll(async () => {
    await app.close();
    await deleteStreams(nats.nc, prefix);
    await nats.close();
    await schema.drop();
  });

  it('migrates, provisions, becomes ready, consumes outputs and resolves clicks', async () => {
    const readiness = app.get(ReadinessService);
    const report = await waitFor('the binding to be ready', async () => {
      const r = await readiness.report();
      return r.ready && r;
    });
    expect(report.checks).toMatchObject({
      nats: true,
      streams: true,
      database: true,
      [`consumer:${bindingDurable('slack')}`]: true,
    });
    const jsm = await jetstream(nats.nc).jetstreamManager();
    const durable = await jsm.consumers.info(streamNames(prefix).outputs, 'slack-binding');
    expect(durable.config.filter_subject).toBe(`${prefix}.out.slack.>`);

    const p = promptOutputs();
    const request = p.request(3);
    await new JetStreamPublisher(jetstream(nats.nc)).publish(
      outputSubject(new Subjects(prefix), request),
      encodeMessage(request),
      { msgId: request.id },
    );
    const [post] = await waitFor('the prompt to be posted', () => {
      const posts = adapter.postsFor(promptRefOf(p.key));
      return posts.length > 0 && posts;
    });
    expect(post.view).toEqual({ kind: 'pending', request });
    expect(await app.get(HasSession).execute(p.conversation)).toBe(true);

    const forwarded = await app.get(ForwardClick).execute(
      {
        promptRef: post.target.promptRef,
        optionKey: 'deny',
        clicker: bob,
        commandId: 'module-click-1',
      },
      { receivedAt: Date.now() },
    );
    expect(forwarded).toMatchObject({
      kind: 'forwarded',
      command: { sessionId: p.sessionId, callId: p.callId, optionKey: 'deny', sender: bob },
    });
  });

  it('leases for twice the ack wait by default', () => {
    expect(defaultLeaseMs(config.TOLLGATE_ACK_WAIT_MS)).toBe(4_000);
  });

  it('refuses an adapter provider that does not provide PLATFORM_ADAPTER', () => {
    expect(() =>
      BindingCoreModule.forRoot({
        platform: 'slack',
        adapter: {
          provide: 'something-else' as unknown as typeof PLATFORM_ADAPTER,
          useValue: adapter,
        },
      }),
    ).toThrow(/PLATFORM_ADAPTER/);
  });
});
