// Turns a checked policy file into the ToolPolicy the session asks (entryFor, apiEntryFor):
// defaults filled in (options, onDeadline), approvers split into persons and groups, and
// the allow-list made explicit. Runs only on a file the checks passed.
import {
  type ApproverGroup,
  OPTION_KEYS,
  type OptionKey,
  type Person,
  parseArgumentConstraint,
  standardOptions,
} from '@tollgate/protocol';
import type { PromptTimerPolicy, QuorumPolicy, ToolPolicy, ToolPolicyEntry } from './tool-policy';
import type { ToolRegistry } from './tool-registry';
import { grantOfferOf } from './grant-offer';
import { apiToolEntryOf } from './api-tool-policy';
import type { PolicyFile, PolicyFileEntry } from './tool-policy.schema';

/** Without a policy file every MCP tool asks first, with all four options. */
export function withMcpDefault(policy: ToolPolicy, registry: ToolRegistry): ToolPolicy {
  const ask: ToolPolicyEntry = { mode: 'approval', options: standardOptions(OPTION_KEYS) };
  return {
    apiEntryFor: (toolName) => policy.apiEntryFor(toolName),
    entryFor: (toolName) =>
      policy.entryFor(toolName) ?? (registry.isMcpTool?.(toolName) === true ? ask : undefined),
  };
}

export function policyOf(file: PolicyFile, registry: ToolRegistry): ToolPolicy {
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

const QUORUM_OPTIONS: readonly OptionKey[] = ['approve_once', 'deny'];

function editableOf(entry: PolicyFileEntry): ToolPolicyEntry['editable'] {
  if (entry.editable === undefined) return undefined;
  return Object.entries(entry.editable).flatMap(([name, raw]) => {
    const parsed = parseArgumentConstraint(raw);
    return parsed.ok ? [{ name, constraint: parsed.constraint }] : [];
  });
}

function quorumOf(entry: PolicyFileEntry): QuorumPolicy | undefined {
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

function timersOf(entry: PolicyFileEntry): PromptTimerPolicy | undefined {
  const remindMs = [...(entry.remind ?? [])].sort((a, b) => a - b);
  if (entry.deadline === undefined && remindMs.length === 0) return undefined;
  return {
    ...(entry.deadline === undefined ? {} : { deadlineMs: entry.deadline }),
    onDeadline: entry.onDeadline ?? 'expire',
    remindMs,
  };
}
