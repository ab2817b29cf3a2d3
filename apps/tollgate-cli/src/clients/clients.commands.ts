import { type CliCommand, CliFailure, type CliOptions, EXIT } from '../cli-command';
import {
  approversOf,
  clientLine,
  clientSummary,
  identifierOf,
  nameOf,
  platformOf,
  webhookOf,
} from './client-options';
import { withClients } from './clients-database';

const ENV_HELP = [
  "Works on the approval-api's schema: DATABASE_URL, and DATABASE_SCHEMA (default approval_api),",
  'which it migrates first when the service has not yet.',
].join('\n');

/** Create and update take the same route, approver, principal and webhook options. */
const CLIENT_OPTIONS: CliOptions = {
  channel: { type: 'string' },
  thread: { type: 'string' },
  approver: { type: 'string', multiple: true },
  'on-behalf-of': { type: 'string' },
  webhook: { type: 'string' },
  json: { type: 'boolean' },
};

export const CLIENTS_CREATE: CliCommand = {
  path: ['clients', 'create'],
  summary: 'create an agent client and print its API key once',
  usage:
    '<name> --platform <p> --workspace <id> --channel <id> [--thread <id>] --approver <person id> ' +
    '[--approver …] [--on-behalf-of <person id>] [--webhook <url>] [--json]',
  operands: { min: 1, max: 1 },
  help: [
    'Creates an agent client of the approval API. Its requests may only go to this',
    'conversation and be answered by these approvers (add more with `clients update`).',
    'The key is printed now and never again: Tollgate stores only its scrypt hash.',
    '',
    'Options:',
    '  --platform P        slack, discord or mattermost',
    '  --workspace ID      Slack team, Discord guild, Mattermost team (--workspace= for a DM)',
    '  --channel ID        the channel prompts go to',
    '  --thread ID         a thread in it (default: the channel itself)',
    '  --approver ID       a person who may answer; repeat for more (at most 20)',
    '  --on-behalf-of ID   the person the agent acts for, shown on the prompt',
    '  --webhook URL       POSTed each decision, signed with a secret printed once',
    '  --json              one line: {"id","key","webhookSecret"}',
    '',
    ENV_HELP,
  ].join('\n'),
  options: {
    platform: { type: 'string' },
    workspace: { type: 'string' },
    ...CLIENT_OPTIONS,
  },
  async run(values, { io, env }, operands) {
    const name = nameOf(operands[0]);
    const input = {
      name,
      platform: platformOf(values),
      workspaceId: identifierOf(values, 'workspace', { required: true, allowEmpty: true }) ?? '',
      conversation: {
        channelId: identifierOf(values, 'channel', { required: true }) ?? '',
        threadId: identifierOf(values, 'thread', { required: false, allowEmpty: true }) ?? '',
      },
      approvers: approversOf(values, { required: true }),
      onBehalfOf: identifierOf(values, 'on-behalf-of', { required: false }),
      webhookUrl: webhookOf(values),
    };
    const { client, key } = await withClients(env, (clients) => clients.create(input));
    if (values.json === true) {
      io.out(JSON.stringify({ id: client.id, key, webhookSecret: client.webhookSecret }));
      return EXIT.ok;
    }
    io.out(`created client ${client.id} (${JSON.stringify(client.name)})`);
    io.out(`API key (shown once, store it now): ${key}`);
    if (client.webhookSecret !== null)
      io.out(`webhook secret (verifies Tollgate-Signature): ${client.webhookSecret}`);
    return EXIT.ok;
  },
};

export const CLIENTS_LIST: CliCommand = {
  path: ['clients', 'list'],
  summary: 'list agent clients (never their keys)',
  usage: '[--json]',
  help: [
    'Lists every agent client, revoked ones included.',
    '',
    '  --json  one JSON line per client',
    '',
    ENV_HELP,
  ].join('\n'),
  options: { json: { type: 'boolean' } },
  async run(values, { io, env }) {
    const all = await withClients(env, (clients) => clients.list());
    for (const client of all)
      io.out(values.json === true ? JSON.stringify(clientSummary(client)) : clientLine(client));
    if (all.length === 0 && values.json !== true) io.out('no clients');
    return EXIT.ok;
  },
};

export const CLIENTS_UPDATE: CliCommand = {
  path: ['clients', 'update'],
  summary: 'add routes or approvers to a client, or change its name, webhook or principal',
  usage:
    '<id> [--name <name>] [--channel <id> [--thread <id>]] [--approver <person id> …] ' +
    '[--on-behalf-of <person id>] [--webhook <url>] [--json]',
  operands: { min: 1, max: 1 },
  help: [
    'Adds a conversation (--channel, optionally --thread) and approvers the client may use;',
    'nothing is removed, since pending approvals may name them. A first --webhook also',
    'creates the webhook secret, printed once.',
    '',
    ENV_HELP,
  ].join('\n'),
  options: { name: { type: 'string' }, ...CLIENT_OPTIONS },
  async run(values, { io, env }, operands) {
    const id = operands[0] ?? '';
    const channelId = identifierOf(values, 'channel', { required: false });
    const threadId = identifierOf(values, 'thread', { required: false, allowEmpty: true });
    if (threadId !== undefined && channelId === undefined)
      throw new CliFailure('--thread needs the --channel it is in');
    const changes = {
      name: values.name === undefined ? undefined : nameOf(String(values.name)),
      addConversations: channelId === undefined ? [] : [{ channelId, threadId: threadId ?? '' }],
      addApprovers: approversOf(values, { required: false }),
      onBehalfOf: identifierOf(values, 'on-behalf-of', { required: false }),
      webhookUrl: webhookOf(values),
    };
    const before = await withClients(env, async (clients) => {
      const previous = await clients.find(id);
      const updated = await clients.update(id, changes);
      return { previous, updated };
    });
    if (before.updated === undefined) throw new CliFailure(`no client ${id}`);
    const client = before.updated;
    const newSecret =
      before.previous?.webhookSecret === null && client.webhookSecret !== null
        ? client.webhookSecret
        : null;
    if (values.json === true) {
      io.out(JSON.stringify({ ...clientSummary(client), webhookSecret: newSecret }));
      return EXIT.ok;
    }
    io.out(`updated ${clientLine(client)}`);
    if (newSecret !== null) io.out(`webhook secret (shown once): ${newSecret}`);
    return EXIT.ok;
  },
};

export const CLIENTS_REVOKE: CliCommand = {
  path: ['clients', 'revoke'],
  summary: "revoke a client's key (every replica refuses it within 5 s)",
  usage: '<id>',
  operands: { min: 1, max: 1 },
  help: [
    'Revokes the client: its key is refused from now on, on every approval-api replica.',
    'Its approvals stay readable to nobody; a revoked client cannot be restored.',
    '',
    ENV_HELP,
  ].join('\n'),
  options: {},
  async run(_values, { io, env }, operands) {
    const id = operands[0] ?? '';
    const client = await withClients(env, (clients) => clients.revoke(id));
    if (client === undefined) throw new CliFailure(`no client ${id}`);
    io.out(`revoked ${client.id} (${JSON.stringify(client.name)})`);
    return EXIT.ok;
  },
};

export const CLIENTS_ROTATE: CliCommand = {
  path: ['clients', 'rotate'],
  summary: 'give a client a new key; the old one stops working at once',
  usage: '<id> [--json]',
  operands: { min: 1, max: 1 },
  help: [
    'Issues a new key for a client that is not revoked and prints it once; the old key is',
    'refused from now on.',
    '',
    '  --json  one line: {"id","key"}',
    '',
    ENV_HELP,
  ].join('\n'),
  options: { json: { type: 'boolean' } },
  async run(values, { io, env }, operands) {
    const id = operands[0] ?? '';
    const rotated = await withClients(env, (clients) => clients.rotate(id));
    if (rotated === undefined) throw new CliFailure(`no active client ${id}`);
    if (values.json === true) {
      io.out(JSON.stringify({ id: rotated.client.id, key: rotated.key }));
      return EXIT.ok;
    }
    io.out(`new API key for ${rotated.client.id} (shown once, store it now): ${rotated.key}`);
    return EXIT.ok;
  },
};
