import { type CliCommand, EXIT } from '../cli-command';
import { deadLetterJson, deadLetterLine, letterCount } from './dead-letter.formatter';
import { DeadLetterStore } from './dead-letter.store';
import { NATS_ENV_HELP, serviceOf } from './dlq-options';

export const DLQ_LIST: CliCommand = {
  path: ['dlq', 'list'],
  summary: 'list the dead-lettered messages, with why and whence',
  usage: '[--service S] [--json]',
  help: [
    'Lists every copy in <PREFIX>_DLQ, oldest first: its sequence (what `dlq show` and',
    '`dlq replay` take), when it was dead-lettered, the service that did it, the subject the',
    'original was read from, the reason, and whether it was cut to fit or already replayed.',
    '',
    'Options:',
    '  --service S     only the copies service S dead-lettered, e.g. slack-binding',
    '  --json          one JSON object per copy and line, nothing else',
    '  -h, --help      this text',
    '',
    NATS_ENV_HELP,
  ].join('\n'),
  options: { service: { type: 'string' }, json: { type: 'boolean' } },

  async run(values, { io, nats }) {
    const service = serviceOf(values);
    const store = new DeadLetterStore(await nats());
    const all = await store.list();
    const shown = all.filter((e) => service === undefined || e.letter.service === service);
    if (values.json === true) {
      for (const e of shown) io.out(JSON.stringify(deadLetterJson(e.letter, e.replayed)));
      return EXIT.ok;
    }
    for (const e of shown) io.out(deadLetterLine(e.letter, e.replayed));
    const replayed = shown.filter((e) => e.replayed !== undefined).length;
    io.out(
      `${letterCount(shown.length)}${service === undefined ? '' : ` of ${service}`} in ${store.stream}` +
        (replayed > 0 ? ` (${replayed} replayed)` : ''),
    );
    return EXIT.ok;
  },
};
