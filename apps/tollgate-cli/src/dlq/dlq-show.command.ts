import { type CliCommand, CliFailure, EXIT } from '../cli-command';
import { deadLetterJson, payloadText } from './dead-letter.formatter';
import { DeadLetterStore } from './dead-letter.store';
import { NATS_ENV_HELP, seqOf } from './dlq-options';

export const DLQ_SHOW: CliCommand = {
  path: ['dlq', 'show'],
  summary: 'show one dead letter: its headers and payload',
  usage: '<seq> [--json]',
  operands: { min: 1, max: 1 },
  help: [
    'Shows the copy at DLQ sequence <seq> (from `dlq list`): every header it carries, its',
    'payload (pretty-printed when it is JSON), and its replay if it was replayed.',
    '',
    'Options:',
    '  --json          one JSON object with the headers and the payload as text',
    '  -h, --help      this text',
    '',
    NATS_ENV_HELP,
  ].join('\n'),
  options: { json: { type: 'boolean' } },

  async run(values, { io, nats }, operands) {
    const seq = seqOf(operands[0]);
    const store = new DeadLetterStore(await nats());
    const letter = await store.get(seq);
    if (letter === undefined)
      throw new CliFailure(`no message at sequence ${seq} in ${store.stream}`);
    if (letter === 'marker') {
      throw new CliFailure(`sequence ${seq} records a replay, it is not a dead letter`);
    }
    const replayed = await store.replayOf(seq);
    if (values.json === true) {
      io.out(
        JSON.stringify({
          ...deadLetterJson(letter, replayed),
          headers: Object.fromEntries(letter.headers),
          payload: new TextDecoder().decode(letter.data),
        }),
      );
      return EXIT.ok;
    }
    io.out(`seq:     ${letter.seq}`);
    io.out(`time:    ${letter.time.toISOString()}`);
    io.out(`subject: ${letter.subject}`);
    io.out(
      replayed === undefined
        ? 'replayed: no'
        : `replayed: ${replayed.replayedAt} to ${replayed.subject} as ${replayed.stream} seq ${replayed.streamSeq} (msg id ${JSON.stringify(replayed.msgId)})`,
    );
    io.out('headers:');
    for (const [key, value] of letter.headers) io.out(`  ${key}: ${JSON.stringify(value)}`);
    io.out(`payload (${letter.data.length} bytes):`);
    io.out(payloadText(letter.data));
    return EXIT.ok;
  },
};
