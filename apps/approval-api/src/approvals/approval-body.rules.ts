import { type ApprovalClient, routeAllowed } from '@tollgate/approval-clients';
import {
  apiQuorumProblem,
  type ApproverGroup,
  type GrantOfferInput,
  jsonArgumentsProblem,
  type JsonObject,
  LIMITS,
  OPTION_KEYS,
  type OptionKey,
  parseDuration,
  type Platform,
} from '@tollgate/protocol';
import { approversAllowedFor, ApproversRefusal, readApprovers } from './approval-approvers.rules';
import { readAlways } from './approval-grant-offer.rules';

/** A create request after validation and the client's defaults. */
export interface ApprovalAsk {
  readonly tool: string;
  readonly arguments: JsonObject;
  readonly summary?: string;
  readonly agent: { readonly name: string; readonly session: string };
  readonly route: {
    readonly platform: Platform;
    readonly workspace: string;
    readonly channel: string;
    readonly thread: string;
  };
  readonly approvers: readonly string[];
  /** G1 (2026-12-01 (f)): platform groups whose members may answer too. */
  readonly approverGroups?: readonly ApproverGroup[];
  readonly onBehalfOf: string | null;
  readonly options: readonly OptionKey[];
  readonly deadline?: string;
  readonly onDeadline?: 'expire' | 'deny';
  /** G1: distinct approvers needed (absent: 1). */
  readonly quorum?: number;
  /** G1: `onBehalfOf` may deny but not approve. */
  readonly separateApprover?: boolean;
  /** G3 (2026-12-01 (f)): what its "Always allow" gives, as a policy's `always:`. */
  readonly always?: GrantOfferInput;
}

export type BodyVerdict =
  | { readonly ok: true; readonly ask: ApprovalAsk }
  | {
      readonly ok: false;
      readonly status: 400 | 403;
      readonly code: string;
      readonly message: string;
    };

const FIELDS = new Set([
  'tool',
  'arguments',
  'summary',
  'agent',
  'route',
  'approvers',
  'onBehalfOf',
  'options',
  'deadline',
  'onDeadline',
  'quorum',
  'separateApprover',
  'always',
]);
// eslint-disable-next-line no-control-regex
const UNSTORABLE = /[\u0000\p{Cs}]/u;
const MAX_ID = 200;

/** Thrown inside this file only, and turned into a verdict at its one entry point. */
class Refusal extends Error {
  constructor(
    readonly status: 400 | 403,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const bad = (code: string, message: string) => new Refusal(400, code, message);

/**
 * Checks a `POST /v1/approvals` body (docs/protocol.md, the approval API) and fills what it
 * leaves out from the client: route, approvers, on whose behalf. Pure: the same body and
 * client always give the same verdict. A route or approver the client was not created with
 * is 403 `route_not_allowed`; everything else malformed is a 400 naming the field.
 */
export function checkApprovalBody(body: unknown, client: ApprovalClient): BodyVerdict {
  try {
    return { ok: true, ask: read(body, client) };
  } catch (error) {
    if (error instanceof Refusal)
      return { ok: false, status: error.status, code: error.code, message: error.message };
    if (error instanceof ApproversRefusal)
      return { ok: false, status: 400, code: error.code, message: error.message };
    throw error;
  }
}

function read(body: unknown, client: ApprovalClient): ApprovalAsk {
  if (!isObject(body)) throw bad('invalid_body', 'the body must be a JSON object');
  const unknown = Object.keys(body).find((key) => !FIELDS.has(key));
  if (unknown !== undefined)
    throw bad('unknown_field', `unknown field ${JSON.stringify(unknown.slice(0, 60))}`);

  const tool = text(body.tool, 'invalid_tool', 'tool', { min: 1, max: LIMITS.apiToolName });
  const argsProblem = jsonArgumentsProblem(body.arguments);
  if (argsProblem !== undefined) throw bad('invalid_arguments', `arguments ${argsProblem}`);
  const summary =
    body.summary === undefined || body.summary === null
      ? undefined
      : text(body.summary, 'invalid_summary', 'summary', {
          min: 0,
          max: LIMITS.apiSummary,
        });
  const agent = readAgent(body.agent, client);
  const route = readRoute(body.route, client);
  const asked = readApprovers(body.approvers, client);
  const approvers = [...asked.persons];
  const approverGroups = asked.groups.length > 0 ? [...asked.groups] : undefined;
  const onBehalfOf =
    body.onBehalfOf === undefined || body.onBehalfOf === null
      ? client.onBehalfOf
      : identifier(body.onBehalfOf, 'invalid_on_behalf_of', 'onBehalfOf');
  const options = readOptions(body.options);
  const deadline =
    body.deadline === undefined || body.deadline === null ? undefined : readDeadline(body.deadline);
  const onDeadline = readOnDeadline(body.onDeadline, deadline);
  const quorum = readQuorum(body.quorum);
  const separateApprover = readSeparateApprover(body.separateApprover);
  const quorumProblem = apiQuorumProblem({
    approvers: approvers.map((id) => ({ id })),
    ...(approverGroups === undefined ? {} : { approverGroups }),
    ...(onBehalfOf === null ? {} : { onBehalfOf: { id: onBehalfOf } }),
    ...(quorum === undefined ? {} : { quorum }),
    ...(separateApprover === undefined ? {} : { separateApprover }),
  });
  if (quorumProblem !== undefined) throw bad('invalid_quorum', `quorum ${quorumProblem}`);
  const always = readAlways(body.always, { options, quorum, separateApprover });
  if (!always.ok) throw bad('invalid_always', always.message);

  if (
    !routeAllowed(client, {
      platform: route.platform,
      workspaceId: route.workspace,
      channelId: route.channel,
      threadId: route.thread,
    })
  )
    throw new Refusal(403, 'route_not_allowed', 'this client may not ask in that conversation');
  if (!approversAllowedFor(client, asked))
    throw new Refusal(403, 'route_not_allowed', 'this client may not ask those approvers');

  return {
    tool,
    arguments: body.arguments as JsonObject,
    ...(summary === undefined || summary === '' ? {} : { summary }),
    agent,
    route,
    approvers,
    ...(approverGroups === undefined ? {} : { approverGroups }),
    onBehalfOf,
    options,
    ...(deadline === undefined ? {} : { deadline }),
    ...(onDeadline === undefined ? {} : { onDeadline }),
    ...(quorum === undefined ? {} : { quorum }),
    ...(separateApprover === undefined ? {} : { separateApprover }),
    ...(always.always === undefined ? {} : { always: always.always }),
  };
}

function readQuorum(raw: unknown): number | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1 || raw > LIMITS.approvers)
    throw bad('invalid_quorum', `quorum must be a whole number from 1 to ${LIMITS.approvers}`);
  return raw;
}

function readSeparateApprover(raw: unknown): boolean | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'boolean')
    throw bad('invalid_separate_approver', 'separateApprover must be true or false');
  return raw;
}

function readAgent(raw: unknown, client: ApprovalClient): ApprovalAsk['agent'] {
  if (raw === undefined || raw === null)
    return { name: defaultAgentName(client), session: 'default' };
  if (!isObject(raw)) throw bad('invalid_agent', 'agent must be an object {name, session}');
  const extra = Object.keys(raw).find((key) => key !== 'name' && key !== 'session');
  if (extra !== undefined) throw bad('invalid_agent', 'agent takes only name and session');
  return {
    name:
      raw.name === undefined
        ? defaultAgentName(client)
        : text(raw.name, 'invalid_agent', 'agent.name', { min: 1, max: LIMITS.agentName }),
    session:
      raw.session === undefined
        ? 'default'
        : text(raw.session, 'invalid_agent', 'agent.session', {
            min: 1,
            max: LIMITS.agentSession,
          }),
  };
}

function defaultAgentName(client: ApprovalClient): string {
  return client.name.slice(0, LIMITS.agentName);
}

function readRoute(raw: unknown, client: ApprovalClient): ApprovalAsk['route'] {
  const fallback = client.conversations[0];
  if (fallback === undefined)
    throw new Refusal(403, 'route_not_allowed', 'this client has no route');
  if (raw === undefined || raw === null) {
    return {
      platform: client.platform,
      workspace: client.workspaceId,
      channel: fallback.channelId,
      thread: fallback.threadId,
    };
  }
  if (!isObject(raw)) throw bad('invalid_route', 'route must be an object');
  const extra = Object.keys(raw).find(
    (key) => !['platform', 'workspace', 'channel', 'thread'].includes(key),
  );
  if (extra !== undefined)
    throw bad('invalid_route', 'route takes only platform, workspace, channel and thread');
  const field = (key: string, fallbackValue: string, allowEmpty: boolean) =>
    raw[key] === undefined || raw[key] === null
      ? fallbackValue
      : identifier(raw[key], 'invalid_route', `route.${key}`, allowEmpty);
  const platform = raw.platform === undefined ? client.platform : raw.platform;
  if (platform !== 'slack' && platform !== 'discord' && platform !== 'mattermost')
    throw bad('invalid_route', 'route.platform must be slack, discord or mattermost');
  const channelGiven = raw.channel !== undefined && raw.channel !== null;
  return {
    platform,
    workspace: field('workspace', client.workspaceId, true),
    channel: field('channel', fallback.channelId, false),
    thread: field('thread', channelGiven ? '' : fallback.threadId, true),
  };
}

function readOptions(raw: unknown): OptionKey[] {
  if (raw === undefined || raw === null) return [...OPTION_KEYS];
  if (!Array.isArray(raw) || raw.length === 0)
    throw bad('invalid_options', `options must be a non-empty list of ${OPTION_KEYS.join(', ')}`);
  const keys = raw.map((key) => {
    const known = OPTION_KEYS.find((k) => k === key);
    if (known === undefined)
      throw bad('invalid_options', `options must be among ${OPTION_KEYS.join(', ')}`);
    return known;
  });
  if (new Set(keys).size !== keys.length) throw bad('invalid_options', 'options must not repeat');
  return keys;
}

function readDeadline(raw: unknown): string {
  if (typeof raw !== 'string')
    throw bad('invalid_deadline', 'deadline must be a duration such as 30m');
  const parsed = parseDuration(raw);
  if (!parsed.ok) throw bad('invalid_deadline', `deadline ${parsed.problem}`);
  return raw;
}

function readOnDeadline(raw: unknown, deadline: string | undefined): 'expire' | 'deny' | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (raw !== 'expire' && raw !== 'deny')
    throw bad('invalid_on_deadline', 'onDeadline must be expire or deny');
  if (deadline === undefined) throw bad('invalid_on_deadline', 'onDeadline needs a deadline');
  return raw;
}

function text(
  raw: unknown,
  code: string,
  name: string,
  { min, max }: { min: number; max: number },
): string {
  if (typeof raw !== 'string' || raw.length < min || raw.length > max || UNSTORABLE.test(raw))
    throw bad(code, `${name} must be a string of ${min} to ${max} characters`);
  return raw;
}

function identifier(raw: unknown, code: string, name: string, allowEmpty = false): string {
  if (
    typeof raw !== 'string' ||
    (raw === '' && !allowEmpty) ||
    raw.length > MAX_ID ||
    UNSTORABLE.test(raw)
  )
    throw bad(code, `${name} must be an id of at most ${MAX_ID} characters`);
  return raw;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
