import { validateSchemaName } from '@tollgate/persistence';
import { PLATFORMS, type Platform } from '@tollgate/protocol';
import { type CliCommand, EXIT, type OptionValues, UsageError } from '../cli-command';
import { field } from '../grants/grant.formatter';
import {
  type BindingJournal,
  readBindingJournal,
  readSessionPending,
} from './pending-prompts.reader';
import { ageOf, comparePending, type PendingPrompt } from './pending-prompts.report';

const SCHEMA_OPTION = (platform: Platform) => `${platform}-schema`;
const SCHEMA_VARIABLE = (platform: Platform) => `${platform.toUpperCase()}_BINDING_SCHEMA`;

export const PENDING: CliCommand = {
  path: ['pending'],
  summary: 'pending prompts per platform and age; flags where sessions and bindings disagree',
  usage: '[--platform P] [--slack-schema S] [--discord-schema S] [--mattermost-schema S] [--json]',
  help: [
    "Lists every prompt waiting for an answer, oldest first per platform: the session-service's",
    'pending calls (its pending_approvals projection, schema DATABASE_SCHEMA) next to the',
    "prompts each binding's journal tracks as pending. A line marked `!` is a disagreement:",
    'a call the session waits on that its binding does not show as pending (nobody can answer',
    'it), or a prompt a binding shows as pending that the session no longer waits on (its',
    'buttons can only be refused). A disagreement only seconds old may be an output on its way.',
    '',
    "A binding's schema that does not exist (that binding is not deployed) is reported and its",
    "platform's calls are shown without comparison.",
    '',
    'Options:',
    `  --platform P           only platform P (${PLATFORMS.join(', ')})`,
    ...PLATFORMS.map(
      (p) =>
        `  --${SCHEMA_OPTION(p).padEnd(20)} the ${p} binding's schema (${SCHEMA_VARIABLE(p)}, default ${p}_binding)`,
    ),
    '  --json                 one JSON object per prompt and line, nothing else on stdout',
    '  -h, --help             this text',
    '',
    'Exits 0 also when prompts disagree: the report is the result.',
  ].join('\n'),
  options: {
    platform: { type: 'string' },
    json: { type: 'boolean' },
    ...Object.fromEntries(PLATFORMS.map((p) => [SCHEMA_OPTION(p), { type: 'string' as const }])),
  },

  async run(values, { io, env, sessionDatabase }) {
    const platforms = platformsOf(values);
    const schemas = new Map(platforms.map((p) => [p, schemaOf(values, env, p)]));
    const database = await sessionDatabase();
    const session = (await readSessionPending(database.dataSource)).filter((c) =>
      platforms.some((p) => c.sessionId.startsWith(`${p}-`)),
    );
    const journals = new Map<Platform, BindingJournal>();
    for (const [platform, schema] of schemas) {
      const keys = session.filter((c) => c.sessionId.startsWith(`${platform}-`));
      journals.set(platform, await readBindingJournal(database.dataSource, schema, keys));
    }
    const prompts = comparePending(session, journals);
    const now = new Date();

    if (values.json === true) {
      for (const prompt of prompts) io.out(JSON.stringify(promptJson(prompt, now)));
      for (const [platform, journal] of journals) {
        if (journal.kind === 'missing') io.err(`${platform}: ${journal.problem}; not compared`);
      }
      return EXIT.ok;
    }
    for (const prompt of prompts) io.out(promptLine(prompt, now));
    for (const platform of platforms) {
      const journal = journals.get(platform)!;
      const mine = prompts.filter((p) => p.platform === platform);
      const disagree = mine.filter((p) => p.disagreement !== undefined).length;
      const pending = mine.filter((p) => p.session === 'pending').length;
      io.out(
        `${platform}: ${pending} pending in sessions` +
          (journal.kind === 'missing'
            ? `; ${journal.problem}, not compared`
            : `, ${mine.filter((p) => p.binding === 'pending').length} in ${schemas.get(platform)}, ${disagree} disagreeing`),
      );
    }
    return EXIT.ok;
  },
};

function promptLine(prompt: PendingPrompt, now: Date): string {
  return [
    prompt.disagreement === undefined ? ' ' : '!',
    field('platform', prompt.platform),
    `age=${ageOf(prompt.since, now)}`,
    field('session', prompt.sessionId),
    field('call', prompt.callId),
    field('tool', prompt.toolName ?? '?'),
    `in_session=${prompt.session}`,
    `in_binding=${prompt.binding}`,
    ...(prompt.disagreement === undefined ? [] : [`(${prompt.disagreement})`]),
  ].join(' ');
}

function promptJson(prompt: PendingPrompt, now: Date): object {
  return {
    platform: prompt.platform,
    sessionId: prompt.sessionId,
    callId: prompt.callId,
    toolName: prompt.toolName ?? null,
    since: prompt.since?.toISOString() ?? null,
    ageSeconds:
      prompt.since === undefined
        ? null
        : Math.floor((now.getTime() - prompt.since.getTime()) / 1000),
    session: prompt.session,
    binding: prompt.binding,
    disagreement: prompt.disagreement ?? null,
  };
}

function platformsOf(values: OptionValues): readonly Platform[] {
  const platform = values.platform;
  if (platform === undefined) return PLATFORMS;
  const known = PLATFORMS.find((p) => p === platform);
  if (known === undefined)
    throw new UsageError(`--platform must be one of ${PLATFORMS.join(', ')}`);
  return [known];
}

function schemaOf(values: OptionValues, env: NodeJS.ProcessEnv, platform: Platform): string {
  const given = values[SCHEMA_OPTION(platform)];
  const raw =
    typeof given === 'string' ? given : env[SCHEMA_VARIABLE(platform)] || `${platform}_binding`;
  const checked = validateSchemaName(raw);
  if (!checked.ok) {
    throw new UsageError(
      `${typeof given === 'string' ? `--${SCHEMA_OPTION(platform)}` : SCHEMA_VARIABLE(platform)}: ${checked.reason}`,
    );
  }
  return checked.schema;
}
