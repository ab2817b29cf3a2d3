import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import { provision, verifyProvisioned } from '@tollgate/messaging';
import { bindingConsumer, sessionServiceConsumer, streamDefinitions } from '@tollgate/protocol';
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
});
