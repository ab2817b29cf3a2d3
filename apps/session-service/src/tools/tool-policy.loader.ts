import { readFileSync } from 'node:fs';
import {
  type ApproverGroup,
  isStorableIdentifier,
  MAX_APPROVER_GROUPS,
  LIMITS,
  MAX_QUORUM,
  OPTION_KEYS,
  type OptionKey,
  type Person,
  MAX_EDITABLE_ARGUMENTS,
  parseArgumentConstraint,
  standardOptions,
} from '@tollgate/protocol';
import { ConfigError } from '@tollgate/service-runtime';
import { type Document, isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import { z } from 'zod';
import {
  type ApprovalMode,
  defaultToolPolicy,
  type OnDeadline,
  type PromptTimerPolicy,
  type QuorumPolicy,
  type ToolPolicy,
  type ToolPolicyEntry,
} from './tool-policy';
import type { ToolRegistry } from './tool-registry';
import { grantOfferOf, grantOfferSchema } from './grant-offer';
import {
  API_TOOL_UNKNOWN_HINT,
  apiToolEntryOf,
  apiToolEntrySchema,
  apiToolProblems,
} from './api-tool-policy';
import { duration, editableField, remindField, shown } from './policy-fields';

/**
 * `TOOL_POLICY_FILE` (docs/protocol.md §5), YAML or JSON (JSON is YAML, so one parser serves both
 * and gives line numbers for either):
 *
 * ```yaml
 * tools:
 *   echo: { mode: auto }
 *   write_note:
 *     mode: approval
 *     options: [approve_once, approve_always, deny]   # default: all four
 *     deadline: 24h          # S22, optional: default no timeout
 *     remind: [1h, 8h]       # optional: thread replies mentioning the requester
 *     onDeadline: expire     # or deny; only with a deadline, default expire
 *     always:                # G3, optional: what "Always allow" gives (grant-offer.ts)
 *       scope: { path: { prefix: /srv/notes } }
 *       ttl: 8h
 *       uses: 2
 *     quorum: 2              # G1, optional: distinct approvals needed (default 1)
 *     approvers: [U01, { id: U02, name: Bob }, { group: S03, name: ops }]   # optional: who may
 *                            # approve (default anyone); a group: its members as the binding resolves them
 *     separateApprover: true # optional: the requester may deny but not approve their call
 *     editable:              # G2, optional: "Edit & approve", each argument inside its constraint
 *       path: { prefix: /srv/notes }
 *       mode: { enum: [read, append] }
 * apiTools:                  # optional: approval API requests, by the tool name the agent sends
 *   Write:                   # only editable and remind (api-tool-policy.ts)
 *     editable: { file_path: { prefix: /srv/notes } }
 * ```
 *
 * With a quorum, approvers or `separateApprover`, a prompt offers only approve_once and deny: a
 * grant ("allow in this chat", "always allow") would let one person stand in for the quorum.
 *
 * `tools:` is an allow-list: a tool it names that the registry lacks is an error, and a
 * registry tool it leaves out is refused by policy, as if listed with `mode: deny`. `apiTools:`
 * names tools the agents run themselves, so the registry has no say there.
 */

const MODES = ['auto', 'approval', 'deny'] as const satisfies readonly ApprovalMode[];
const ON_DEADLINE = ['deny', 'expire'] as const satisfies readonly OnDeadline[];

/** A platform user id, or one with the name the tally shows ("waiting for Bob"). */
const personId = z.string().min(1).max(200).refine(isStorableIdentifier);
const approver = z.union(
  [
    personId,
    z.strictObject({ id: personId, name: z.string().min(1).max(80).optional() }),
    // G1: a Slack user group, Discord role or Mattermost group, resolved when the prompt posts.
    z.strictObject({ group: personId, name: z.string().min(1).max(80).optional() }),
  ],
  {
    error: (issue) =>
      `must be a person id, { id, name } or { group, name }, not ${shown(issue.input)}`,
  },
);
const entrySchema = z.strictObject(
  {
    mode: z.enum(MODES, {
      error: (issue) =>
        issue.input === undefined
          ? 'is required'
          : `must be ${oneOf(MODES)}, not ${shown(issue.input)}`,
    }),
    options: z
      .array(
        z.enum(OPTION_KEYS, {
          error: (issue) => `must be ${oneOf(OPTION_KEYS)}, not ${shown(issue.input)}`,
        }),
        { error: 'must be a list of options' },
      )
      .optional(),
    deadline: duration.optional(),
    remind: remindField,
    onDeadline: z
      .enum(ON_DEADLINE, {
        error: (issue) => `must be ${oneOf(ON_DEADLINE)}, not ${shown(issue.input)}`,
      })
      .optional(),
    quorum: z
      .number({ error: (issue) => `must be a whole number, not ${shown(issue.input)}` })
      .int({ error: (issue) => `must be a whole number, not ${shown(issue.input)}` })
      .min(1, { error: 'must be at least 1' })
      .max(MAX_QUORUM, { error: `must be at most ${MAX_QUORUM}` })
      .optional(),
    approvers: z
      .array(approver, { error: 'must be a list of person ids or groups' })
      .min(1, { error: 'must name at least one person or group' })
      .max(LIMITS.approvers, { error: `must name at most ${LIMITS.approvers} persons or groups` })
      .optional(),
    separateApprover: z
      .boolean({ error: (issue) => `must be true or false, not ${shown(issue.input)}` })
      .optional(),
    editable: editableField,
    always: grantOfferSchema.optional(),
  },
  { error: 'must be a map with a mode and, optionally, options' },
);

const fileSchema = z.strictObject(
  {
    tools: z.record(z.string(), entrySchema, {
      error: (issue) =>
        issue.input === undefined ? 'is required' : 'must map each tool name to its policy',
    }),
    apiTools: z
      .record(z.string().min(1).max(LIMITS.apiToolName), apiToolEntrySchema, {
        error: 'must map each tool name an agent sends to its policy',
      })
      .optional(),
  },
  { error: 'must be a map with a tools entry' },
);

type PolicyFile = z.infer<typeof fileSchema>;

/** What is wrong with a policy file and where; the message names the file and the line. */
export class ToolPolicyFileError extends Error {
  constructor(
    readonly file: string,
    readonly problems: readonly { readonly line?: number; readonly problem: string }[],
  ) {
    super(
      problems
        .map((p) =>
          p.line === undefined ? `${file}: ${p.problem}` : `${file} line ${p.line}: ${p.problem}`,
        )
        .join('; '),
    );
    this.name = 'ToolPolicyFileError';
  }
}

/** Reads and checks the policy file once, at start. */
export function loadToolPolicy(file: string, registry: ToolRegistry): ToolPolicy {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new ToolPolicyFileError(file, [{ problem: `cannot be read (${reason})` }]);
  }
  return parseToolPolicy(text, file, registry);
}

export function parseToolPolicy(text: string, file: string, registry: ToolRegistry): ToolPolicy {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const lineAt = (offset: number) => lines.linePos(offset).line;
  if (doc.errors.length > 0) {
    throw new ToolPolicyFileError(
      file,
      doc.errors.map((e) => ({
        line: lineAt(e.pos[0]),
        problem: `not valid YAML or JSON: ${e.message}`,
      })),
    );
  }
  let content: unknown;
  try {
    content = doc.toJS() ?? undefined;
  } catch (error) {
    // An alias to no anchor, or too many aliases; the parser does not say where.
    const reason = error instanceof Error ? error.message : String(error);
    throw new ToolPolicyFileError(file, [{ problem: `cannot be read as data: ${reason}` }]);
  }
  const parsed = fileSchema.safeParse(content);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]] : issue.path;
      const problem =
        issue.code === 'unrecognized_keys'
          ? `has unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map(shown).join(', ')}${
              issue.path[0] === 'apiTools' && issue.path.length === 2
                ? ` ${API_TOOL_UNKNOWN_HINT}`
                : ''
            }`
          : issue.message;
      return { line: lineOf(doc, lineAt, path), problem: describe(issue.path, problem) };
    });
    throw new ToolPolicyFileError(file, byLine(problems));
  }
  const problems = checkAgainstRegistry(parsed.data, registry).map(({ path, problem }) => ({
    line: lineOf(doc, lineAt, path),
    problem: describe(path, problem),
  }));
  if (problems.length > 0) throw new ToolPolicyFileError(file, byLine(problems));
  return policyOf(parsed.data, registry);
}

/**
 * The policy file is configuration too: loaded with the environment, a bad file stops the
 * start the way a bad variable does, exit 1 naming the variable, the file and the line.
 * Without a file, the built-in policy applies.
 */
export function withToolPolicy<C extends { readonly TOOL_POLICY_FILE?: string }>(
  config: C,
  registry: ToolRegistry,
): C & { readonly toolPolicy: ToolPolicy } {
  if (!config.TOOL_POLICY_FILE) {
    return { ...config, toolPolicy: withMcpDefault(defaultToolPolicy(), registry) };
  }
  try {
    return { ...config, toolPolicy: loadToolPolicy(config.TOOL_POLICY_FILE, registry) };
  } catch (error) {
    if (!(error instanceof ToolPolicyFileError)) throw error;
    throw new ConfigError([{ variable: 'TOOL_POLICY_FILE', problem: error.message }]);
  }
}

/** Without a policy file every MCP tool asks first, with all four options. */
function withMcpDefault(policy: ToolPolicy, registry: ToolRegistry): ToolPolicy {
  const ask: ToolPolicyEntry = { mode: 'approval', options: standardOptions(OPTION_KEYS) };
  return {
    apiEntryFor: (toolName) => policy.apiEntryFor(toolName),
    entryFor: (toolName) =>
      policy.entryFor(toolName) ?? (registry.isMcpTool?.(toolName) === true ? ask : undefined),
  };
}

function checkAgainstRegistry(
  file: PolicyFile,
  registry: ToolRegistry,
): { path: PropertyKey[]; problem: string }[] {
  const problems: { path: PropertyKey[]; problem: string }[] = [];
  const known = registry.list().map((t) => t.name);
  for (const [name, entry] of Object.entries(file.tools)) {
    if (!registry.get(name) && registry.isMcpTool?.(name) !== true) {
      problems.push({
        path: ['tools', name],
        problem: `is not a tool this service has (it has ${known.join(', ')})`,
      });
    }
    const options = entry.options ?? [];
    options.forEach((key, index) => {
      if (options.indexOf(key) !== index) {
        problems.push({ path: ['tools', name, 'options', index], problem: `lists ${key} twice` });
      }
    });
    if (entry.mode === 'approval' && entry.options?.length === 0) {
      problems.push({
        path: ['tools', name, 'options'],
        problem: 'must offer at least one option when the mode is approval',
      });
    }
    problems.push(...quorumProblems(name, entry));
    problems.push(...timerProblems(name, entry), ...editableProblems(name, entry));
    problems.push(...offerProblems(name, entry));
  }
  // The agent's tools are not this service's: no registry check, only the entries' own.
  for (const [name, entry] of Object.entries(file.apiTools ?? {})) {
    problems.push(...apiToolProblems(name, entry));
  }
  return problems;
}

/** G2: an edit approves once, so only a prompt that offers "Approve once" may offer one. */
function editableProblems(
  name: string,
  entry: PolicyFile['tools'][string],
): { path: PropertyKey[]; problem: string }[] {
  if (entry.editable === undefined) return [];
  const at = ['tools', name, 'editable'];
  const count = Object.keys(entry.editable).length;
  if (entry.mode !== 'approval') {
    return [
      {
        path: at,
        problem: `only applies to a tool whose mode is approval (this one is ${entry.mode})`,
      },
    ];
  }
  if ((entry.quorum ?? 1) > 1 || entry.separateApprover === true) {
    // One approver's edit would stand in for the others' approval of other arguments.
    return [{ path: at, problem: 'cannot be combined with a quorum or separateApprover' }];
  }
  if (entry.options !== undefined && !entry.options.includes('approve_once')) {
    return [{ path: at, problem: 'needs approve_once among the options (an edit approves once)' }];
  }
  if (count === 0 || count > MAX_EDITABLE_ARGUMENTS) {
    return [
      { path: at, problem: `must name 1 to ${MAX_EDITABLE_ARGUMENTS} arguments, not ${count}` },
    ];
  }
  return [];
}

function editableOf(entry: PolicyFile['tools'][string]): ToolPolicyEntry['editable'] {
  if (entry.editable === undefined) return undefined;
  return Object.entries(entry.editable).flatMap(([name, raw]) => {
    const parsed = parseArgumentConstraint(raw);
    return parsed.ok ? [{ name, constraint: parsed.constraint }] : [];
  });
}

function policyOf(file: PolicyFile, registry: ToolRegistry): ToolPolicy {
  const entries = new Map<string, ToolPolicyEntry>();
  for (const tool of registry.list()) entries.set(tool.name, { mode: 'deny', options: [] });
  for (const [name, entry] of Object.entries(file.tools)) {
    const quorum = quorumOf(entry);
    const keys: readonly OptionKey[] = entry.options ?? (quorum ? QUORUM_OPTIONS : OPTION_KEYS);
    const timers = timersOf(entry);
    const editable = editableOf(entry);
    const offered = entry.always === undefined ? undefined : grantOfferOf(entry.always);
    const always = offered?.ok ? offered.offer : undefined;
    entries.set(name, {
      mode: entry.mode,
      // G3: the "Always allow" button says what it gives.
      options: standardOptions(keys).map((o) =>
        o.key === 'approve_always' && always ? { ...o, label: always.label } : o,
      ),
      ...(always ? { always } : {}),
      ...(timers ? { timers } : {}),
      ...(quorum ? { quorum } : {}),
      ...(editable ? { editable } : {}),
    });
  }
  // An allow-list: an MCP tool the file does not name is refused like an unnamed built-in.
  const refused: ToolPolicyEntry = { mode: 'deny', options: [] };
  const apiEntries = new Map(
    Object.entries(file.apiTools ?? {}).map(([name, entry]) => [name, apiToolEntryOf(entry)]),
  );
  return {
    apiEntryFor: (toolName) => apiEntries.get(toolName),
    entryFor: (toolName) =>
      entries.get(toolName) ?? (registry.isMcpTool?.(toolName) === true ? refused : undefined),
  };
}

/** G3: an offer only means something where "Always allow" is offered. */
function offerProblems(
  name: string,
  entry: PolicyFile['tools'][string],
): { path: PropertyKey[]; problem: string }[] {
  if (entry.always === undefined) return [];
  const at = (...path: PropertyKey[]) => ['tools', name, 'always', ...path];
  if (entry.mode !== 'approval' || (entry.options && !entry.options.includes('approve_always'))) {
    return [{ path: at(), problem: 'only applies to a tool whose prompt offers approve_always' }];
  }
  const offered = grantOfferOf(entry.always);
  return offered.ok ? [] : offered.problems.map((p) => ({ path: at(p.field), problem: p.problem }));
}

/** S22: the deadline and reminders only mean something on a prompt, and only in order. */
function timerProblems(
  name: string,
  entry: PolicyFile['tools'][string],
): { path: PropertyKey[]; problem: string }[] {
  const problems: { path: PropertyKey[]; problem: string }[] = [];
  const at = (...path: PropertyKey[]) => ['tools', name, ...path];
  if (entry.mode !== 'approval') {
    for (const field of ['deadline', 'remind', 'onDeadline'] as const) {
      if (entry[field] !== undefined) {
        problems.push({
          path: at(field),
          problem: `only applies to a tool whose mode is approval (this one is ${entry.mode})`,
        });
      }
    }
    return problems;
  }
  if (entry.onDeadline !== undefined && entry.deadline === undefined) {
    problems.push({ path: at('onDeadline'), problem: 'needs a deadline' });
  }
  const remind = entry.remind ?? [];
  remind.forEach((ms, index) => {
    if (remind.indexOf(ms) !== index) {
      problems.push({ path: at('remind', index), problem: 'repeats an earlier reminder' });
    } else if (entry.deadline !== undefined && ms >= entry.deadline) {
      problems.push({ path: at('remind', index), problem: 'must come before the deadline' });
    }
  });
  return problems;
}

const QUORUM_OPTIONS: readonly OptionKey[] = ['approve_once', 'deny'];
const GRANT_OPTIONS: readonly OptionKey[] = ['approve_session', 'approve_always'];

/** G1: a quorum only means something on a prompt, and only one its approvers can reach. */
function quorumProblems(
  name: string,
  entry: PolicyFile['tools'][string],
): { path: PropertyKey[]; problem: string }[] {
  const problems: { path: PropertyKey[]; problem: string }[] = [];
  const at = (...path: PropertyKey[]) => ['tools', name, ...path];
  if (entry.mode !== 'approval') {
    for (const field of ['quorum', 'approvers', 'separateApprover'] as const) {
      if (entry[field] !== undefined) {
        problems.push({
          path: at(field),
          problem: `only applies to a tool whose mode is approval (this one is ${entry.mode})`,
        });
      }
    }
    return problems;
  }
  // Persons and groups keyed apart: a group id may look like a person's on some platform.
  const keys = (entry.approvers ?? []).map((a) =>
    typeof a === 'string' ? `person ${a}` : 'group' in a ? `group ${a.group}` : `person ${a.id}`,
  );
  keys.forEach((key, index) => {
    if (keys.indexOf(key) !== index) {
      problems.push({ path: at('approvers', index), problem: `names ${key.split(' ')[1]} twice` });
    }
  });
  const ids = keys.filter((k) => k.startsWith('person ')).map((k) => k.slice('person '.length));
  const groups = keys.length - ids.length;
  if (groups > MAX_APPROVER_GROUPS) {
    problems.push({
      path: at('approvers'),
      problem: `names ${groups} groups, at most ${MAX_APPROVER_GROUPS}`,
    });
  }
  const required = entry.quorum ?? 1;
  // A group's size is known only once the binding resolves it: the quorum is checked then.
  if (entry.approvers !== undefined && groups === 0 && required > new Set(ids).size) {
    problems.push({
      path: at('quorum'),
      problem: `needs ${required} distinct approvers but approvers names ${new Set(ids).size}`,
    });
  }
  const hasRule = required > 1 || entry.separateApprover === true || entry.approvers !== undefined;
  if (hasRule) {
    (entry.options ?? []).forEach((key, index) => {
      if (GRANT_OPTIONS.includes(key)) {
        problems.push({
          path: at('options', index),
          problem: `cannot be offered with a quorum, approvers or separateApprover: a grant would let one person stand in for them`,
        });
      }
    });
  }
  return problems;
}

function quorumOf(entry: PolicyFile['tools'][string]): QuorumPolicy | undefined {
  const required = entry.quorum ?? 1;
  const separateApprover = entry.separateApprover === true;
  const persons = (entry.approvers ?? []).flatMap((a): Person[] =>
    typeof a === 'string'
      ? [{ id: a }]
      : 'group' in a
        ? []
        : [{ id: a.id, ...(a.name ? { displayName: a.name } : {}) }],
  );
  const groups = (entry.approvers ?? []).flatMap((a): ApproverGroup[] =>
    typeof a !== 'string' && 'group' in a
      ? [{ id: a.group, ...(a.name ? { name: a.name } : {}) }]
      : [],
  );
  const approvers = persons.length > 0 ? persons : undefined;
  const approverGroups = groups.length > 0 ? groups : undefined;
  // Named approvers alone change who answers, so they make a rule of their own even at 1.
  if (required === 1 && !separateApprover && entry.approvers === undefined) return undefined;
  return {
    required,
    separateApprover,
    ...(approvers ? { approvers } : {}),
    ...(approverGroups ? { approverGroups } : {}),
  };
}

function timersOf(entry: PolicyFile['tools'][string]): PromptTimerPolicy | undefined {
  const remindMs = [...(entry.remind ?? [])].sort((a, b) => a - b);
  if (entry.deadline === undefined && remindMs.length === 0) return undefined;
  return {
    ...(entry.deadline === undefined ? {} : { deadlineMs: entry.deadline }),
    onDeadline: entry.onDeadline ?? 'expire',
    remindMs,
  };
}

/** The line of the deepest node of `path` the document has (a map key's own line). */
function lineOf(doc: Document, lineAt: (offset: number) => number, path: readonly PropertyKey[]) {
  let node: unknown = doc.contents;
  let line = hasRange(node) ? lineAt(node.range[0]) : 1;
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find(
        (p) => isScalar(p.key) && String(p.key.value) === String(segment),
      );
      if (!pair) break;
      if (hasRange(pair.key)) line = lineAt(pair.key.range[0]);
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      const item = node.items[segment];
      if (!hasRange(item)) break;
      line = lineAt(item.range[0]);
      node = item;
    } else {
      break;
    }
  }
  return line;
}

function hasRange(node: unknown): node is { range: [number, number, number] } {
  return (
    typeof node === 'object' && node !== null && Array.isArray((node as { range?: unknown }).range)
  );
}

function describe(path: readonly PropertyKey[], problem: string): string {
  if (path.length === 0) return `the file ${problem}`;
  const text = path
    .map((segment, i) =>
      typeof segment === 'number' ? `[${segment}]` : `${i > 0 ? '.' : ''}${String(segment)}`,
    )
    .join('');
  return `${text} ${problem}`;
}

function byLine<T extends { line?: number }>(problems: T[]): T[] {
  return [...problems].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
}

function oneOf(values: readonly string[]): string {
  return `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;
}
