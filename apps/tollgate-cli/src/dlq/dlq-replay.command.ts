import { DUPLICATE_WINDOW_MS, type Subjects } from '@tollgate/protocol';
import { type CliCommand, type CliIo, EXIT, UsageError } from '../cli-command';
import type { DeadLetter, ReplayRecord } from './dead-letter';
import { DeadLetterStore } from './dead-letter.store';
import { NATS_ENV_HELP, seqOf, serviceOf } from './dlq-options';
import { planReplay } from './replay-plan';

type Outcome = 'replayed' | 'already' | 'refused' | 'failed';

export const DLQ_REPLAY: CliCommand = {
  path: ['dlq', 'replay'],
  summary: 'publish dead letters again to their original subject',
  usage: '<seq> | --all [--service S] [--yes]',
  operands: { min: 0, max: 1 },
  help: [
    'Publishes the copy at DLQ sequence <seq> (or, with --all, every copy not yet replayed)',
    'to the subject the original was read from, with the original Nats-Msg-Id: the id in',
    'its payload, which bindings publish a command under and the session-service an output',
    'under. Consumers therefore treat the replay as the original message: the session-service',
    'decides a command id once, a binding applies an output once.',
    '',
    'Idempotent: after JetStream confirms the publish, the replay is recorded in the DLQ on',
    '<prefix>.dlq.replayed.<seq> (the copy itself is kept for its 30 days), and a copy with a',
    'record is never published again. Refused, saying why: a copy cut to fit the server',
    '(Tollgate-Dlq-Truncated-From), a payload that does not parse as a command or output',
    'for its original subject, and an original subject that the service which wrote the copy',
    'does not consume: a copy on <prefix>.dlq.<platform>-binding replays only onto that',
    "platform's outputs, one on <prefix>.dlq.session-service only onto commands. The header",
    "naming the original subject is the dead-lettering service's word; where the copy is",
    'stored is not, since only that service may write there.',
    '',
    '--all first shows what it would publish, counted by original subject (session and call',
    'ids as *), and every copy it refuses with the reason, then asks before publishing.',
    'Without a terminal to ask on it publishes nothing unless --yes is given.',
    '',
    'Options:',
    '  --all           every copy not yet replayed, oldest first',
    '  --service S     with --all: only the copies service S dead-lettered',
    '  --yes           with --all: publish without asking (for scripts)',
    '  -h, --help      this text',
    '',
    'Exits 0 when every copy asked for was replayed or already had been; 2 when the one',
    'copy named was refused, or --all was not confirmed (nothing published); 1 when a',
    'publish failed, or with --all when any copy was refused or failed (the others were',
    'replayed).',
    '',
    NATS_ENV_HELP,
  ].join('\n'),
  options: { all: { type: 'boolean' }, service: { type: 'string' }, yes: { type: 'boolean' } },

  async run(values, { io, nats }, operands) {
    const service = serviceOf(values);
    const all = values.all === true;
    if (all === (operands.length === 1)) {
      throw new UsageError('name one DLQ sequence, or pass --all');
    }
    if (service !== undefined && !all) throw new UsageError('--service goes with --all');
    if (values.yes === true && !all) throw new UsageError('--yes goes with --all');
    const connection = await nats();
    const store = new DeadLetterStore(connection);

    if (!all) {
      const seq = seqOf(operands[0]);
      const letter = await store.get(seq);
      if (letter === undefined)
        throw new UsageError(`no message at sequence ${seq} in ${store.stream}`);
      if (letter === 'marker')
        throw new UsageError(`sequence ${seq} records a replay, it is not a dead letter`);
      const outcome = await replayOne(
        store,
        connection.subjects,
        letter,
        await store.replayOf(seq),
        io,
      );
      return outcome === 'refused' ? EXIT.usage : outcome === 'failed' ? EXIT.failed : EXIT.ok;
    }

    const entries = (await store.list()).filter(
      // By where the copy is stored, which only that service may write, not by its header.
      (e) => service === undefined || e.letter.subject === connection.subjects.dlq(service),
    );
    const counts: Record<Outcome, number> = { replayed: 0, already: 0, refused: 0, failed: 0 };
    const pending = entries.filter(({ replayed }) => replayed === undefined);
    const planned = pending.filter(({ letter }) => planReplay(letter, connection.subjects).ok);
    if (planned.length > 0) {
      io.out(`would replay ${planned.length} of ${entries.length} in ${store.stream}:`);
      for (const [subject, count] of countBySubject(planned.map((e) => e.letter))) {
        io.out(`  ${count} to ${subject}`);
      }
      for (const { letter } of pending.filter((e) => !planned.includes(e))) {
        const plan = planReplay(letter, connection.subjects);
        if (!plan.ok) io.out(`  refused seq=${letter.seq}: ${plan.reason}`);
      }
      if (values.yes !== true) {
        const answer = await io.confirm?.(
          `publish these ${planned.length} with the operator's rights?`,
        );
        if (answer !== true) {
          io.err(
            answer === undefined
              ? 'not confirmed: no terminal to ask on; pass --yes to replay from a script. Nothing published'
              : 'not confirmed; nothing published',
          );
          return EXIT.usage;
        }
      }
    }
    for (const { letter, replayed } of entries) {
      counts[await replayOne(store, connection.subjects, letter, replayed, io)] += 1;
    }
    io.out(
      `replayed ${counts.replayed}, already replayed ${counts.already}, refused ${counts.refused}, failed ${counts.failed}` +
        ` of ${entries.length}${service === undefined ? '' : ` of ${service}`} in ${store.stream}`,
    );
    return counts.refused + counts.failed > 0 ? EXIT.failed : EXIT.ok;
  },
};

/** Original subjects with their session and call ids as `*`: what kinds of message these are. */
function countBySubject(letters: readonly DeadLetter[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const letter of letters) {
    const tokens = (letter.originalSubject ?? '').split('.');
    if (tokens.length > 3) tokens[3] = '*';
    if (tokens[4] === 'call' && tokens.length > 5) tokens[5] = '*';
    const shape = tokens.join('.');
    counts.set(shape, (counts.get(shape) ?? 0) + 1);
  }
  return [...counts].sort(([a], [b]) => a.localeCompare(b));
}

async function replayOne(
  store: DeadLetterStore,
  subjects: Subjects,
  letter: DeadLetter,
  replayed: ReplayRecord | undefined,
  io: CliIo,
): Promise<Outcome> {
  if (replayed !== undefined) {
    io.out(
      `seq=${letter.seq}: already replayed at ${replayed.replayedAt} to ${replayed.subject}; nothing published`,
    );
    return 'already';
  }
  const plan = planReplay(letter, subjects);
  if (!plan.ok) {
    io.err(`seq=${letter.seq}: refused, nothing published: ${plan.reason}`);
    return 'refused';
  }
  const published = await store.publish(plan.subject, plan.data, plan.msgId, plan.headers);
  if (published.kind === 'duplicate') {
    // Not recorded: the message JetStream remembers may be the original, now gone, and then
    // this replay reached nobody; once the window has passed a new attempt is stored.
    io.err(
      `seq=${letter.seq}: not stored: ${published.stream} already took msg id ${JSON.stringify(plan.msgId)} ` +
        `within its duplicate window (${DUPLICATE_WINDOW_MS / 1000} s), from the original or an interrupted replay; ` +
        'nothing recorded, run the replay again after the window if it has not taken effect',
    );
    return 'failed';
  }
  const record: ReplayRecord = {
    dlqSeq: letter.seq,
    replayedAt: new Date().toISOString(),
    subject: plan.subject,
    msgId: plan.msgId,
    stream: published.stream,
    streamSeq: published.streamSeq,
  };
  const first = await store.record(record);
  io.out(
    `seq=${letter.seq}: replayed to ${plan.subject} with msg id ${JSON.stringify(plan.msgId)} as ${published.stream} seq ${published.streamSeq}` +
      (first ? '' : ' (another replay recorded it first)'),
  );
  return 'replayed';
}
