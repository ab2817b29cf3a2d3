import { AckPolicy, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import type { NatsConnection } from '@nats-io/nats-core';
import { provision, verifyProvisioned } from '@tollgate/messaging';
import {
  BINDING_MAX_ACK_PENDING,
  bindingConsumer,
  sessionServiceConsumer,
  streamDefinitions,
} from '@tollgate/protocol';
import pino from 'pino';
import { connectTestNats, deleteStreams } from '../../support/nats';
import { uniqueToken } from '../../support/unique';

/**
 * X11: the whole configuration is compared, so a field nobody in Tollgate sets — the
 * `republish` issue 19 used to read every platform's prompts — is found, named and refused,
 * on real JetStream.
 */
describe('X11 — streams and durables compared whole', () => {
  const prefix = uniqueToken('x11v');
  const definitions = streamDefinitions(prefix);
  const plan = {
    streams: [definitions.commands, definitions.outputs, definitions.deadLetters],
    consumers: [sessionServiceConsumer(prefix), bindingConsumer(prefix, 'slack')],
  };
  const logger = pino({ level: 'silent' });
  let nc: NatsConnection;
  let jsm: JetStreamManager;

  beforeAll(async () => {
    nc = await connectTestNats();
    jsm = await jetstreamManager(nc);
  });

  afterAll(async () => {
    await deleteStreams(nc, prefix);
    await nc.close();
  });

  it('X11 a stream created first with a republish (and no size limit) is reported, by field, and left as it is', async () => {
    const outputs = definitions.outputs;
    await jsm.streams.add({
      name: outputs.name,
      subjects: outputs.subjects,
      republish: { src: '>', dest: `${prefix}.stolen.>` },
    });
    const report = await provision(jsm, plan, logger);
    const differing = report.differing.find((d) => d.resource === `stream ${outputs.name}`);
    expect(differing?.differences.map((d) => d.field)).toEqual(
      expect.arrayContaining(['discard', 'max_age', 'max_bytes', 'republish']),
    );
    const verified = await verifyProvisioned(jsm, plan);
    expect(verified.missing).toEqual([]);
    expect(verified.differing.map((d) => d.resource)).toEqual([`stream ${outputs.name}`]);
    expect((await jsm.streams.info(outputs.name)).config.republish).toBeDefined();
  });

  it('X11 a stream and durable as defined verify clean; a binding-like plan looks at no stream', async () => {
    const clean = { ...plan, streams: [definitions.commands, definitions.deadLetters] };
    expect(await verifyProvisioned(jsm, clean)).toMatchObject({ missing: [], differing: [] });
    const blind = await verifyProvisioned(jsm, { ...plan, streamsReadable: false });
    expect(blind.usage).toEqual([]);
    expect(blind.differing).toEqual([]);
  });

  /** A binding durable as versions before BINDING_MAX_ACK_PENDING made it (server default). */
  async function olderBindingDurable(platform: 'discord' | 'mattermost', ackWaitMs = 30_000) {
    const wanted = bindingConsumer(prefix, platform);
    await jsm.consumers.add(wanted.stream, {
      durable_name: wanted.durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: wanted.deliverPolicy,
      ack_wait: nanos(ackWaitMs),
      max_deliver: wanted.maxDeliver,
      filter_subject: wanted.filterSubject,
    });
    return wanted;
  }

  it('X11 a binding durable made before max_ack_pending was set is reported, and updated in that field only when asked, logged', async () => {
    const wanted = await olderBindingDurable('discord');
    const resource = `consumer ${wanted.stream}/${wanted.durable}`;
    const only = { streams: [], consumers: [wanted] };
    const drift = { field: 'max_ack_pending', wanted: BINDING_MAX_ACK_PENDING, actual: 1000 };

    const unasked = await provision(jsm, only, logger);
    expect(unasked.differing).toEqual([{ resource, differences: [drift] }]);
    expect(unasked.updated).toEqual([]);
    expect((await jsm.consumers.info(wanted.stream, wanted.durable)).config.max_ack_pending).toBe(
      1000,
    );

    const lines: { msg: string; resource?: string }[] = [];
    const recording = pino(
      { level: 'info' },
      { write: (line: string) => lines.push(JSON.parse(line)) },
    );
    const asked = await provision(jsm, only, recording, { update: ['max_ack_pending'] });
    expect(asked).toMatchObject({ differing: [], updated: [{ resource, differences: [drift] }] });
    expect(lines).toContainEqual(
      expect.objectContaining({
        resource,
        msg: expect.stringMatching(/updated in max_ack_pending/),
      }),
    );
    expect(await verifyProvisioned(jsm, only)).toMatchObject({ missing: [], differing: [] });
    expect((await provision(jsm, only, logger, { update: ['max_ack_pending'] })).unchanged).toEqual(
      [resource],
    );
  });

  it('X11 a durable that drifted in another field as well is refused whole: nothing is updated, not even max_ack_pending', async () => {
    const wanted = await olderBindingDurable('mattermost', 5_000);
    const resource = `consumer ${wanted.stream}/${wanted.durable}`;
    const report = await provision(jsm, { streams: [], consumers: [wanted] }, logger, {
      update: ['max_ack_pending'],
    });
    expect(report.updated).toEqual([]);
    expect(report.differing).toEqual([
      {
        resource,
        differences: [
          { field: 'ack_wait', wanted: 30_000, actual: 5_000 },
          { field: 'max_ack_pending', wanted: BINDING_MAX_ACK_PENDING, actual: 1000 },
        ],
      },
    ]);
    const config = (await jsm.consumers.info(wanted.stream, wanted.durable)).config;
    expect([config.max_ack_pending, config.ack_wait]).toEqual([1000, nanos(5_000)]);
  });
});
