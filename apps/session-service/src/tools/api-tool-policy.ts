import { MAX_EDITABLE_ARGUMENTS, parseArgumentConstraint } from '@tollgate/protocol';
import { z } from 'zod';
import { editableField, remindField } from './policy-fields';
import type { ApiToolPolicyEntry } from './tool-policy';

/**
 * `apiTools:` in `TOOL_POLICY_FILE` (docs/protocol.md §10): what the policy adds to an approval
 * API request, keyed by the tool name the agent sends (`Write`, `Bash`, `mcp__fs__write`). These
 * tools are the agent's, not the session service's, so no registry check applies; and only
 * what an API request takes from the policy is accepted, since quorum, approvers,
 * separateApprover, options and the deadline come with each request.
 */
export const API_TOOL_FIELDS = ['editable', 'remind'] as const;

export const apiToolEntrySchema = z.strictObject(
  { editable: editableField, remind: remindField },
  { error: `must be a map with ${API_TOOL_FIELDS.join(' and/or ')}` },
);

export type ApiToolFileEntry = z.infer<typeof apiToolEntrySchema>;

/** Said after "has unknown field …" under apiTools, so a `tools:`-style entry is explained. */
export const API_TOOL_UNKNOWN_HINT =
  `(an apiTools entry takes only ${API_TOOL_FIELDS.join(' and ')}: ` +
  'every request asks, and its quorum, approvers, options and deadline come with the request)';

export function apiToolProblems(
  name: string,
  entry: ApiToolFileEntry,
): { path: PropertyKey[]; problem: string }[] {
  const problems: { path: PropertyKey[]; problem: string }[] = [];
  const at = (...path: PropertyKey[]) => ['apiTools', name, ...path];
  if (entry.editable !== undefined) {
    const count = Object.keys(entry.editable).length;
    if (count === 0 || count > MAX_EDITABLE_ARGUMENTS) {
      problems.push({
        path: at('editable'),
        problem: `must name 1 to ${MAX_EDITABLE_ARGUMENTS} arguments, not ${count}`,
      });
    }
  }
  const remind = entry.remind ?? [];
  remind.forEach((ms, index) => {
    if (remind.indexOf(ms) !== index) {
      problems.push({ path: at('remind', index), problem: 'repeats an earlier reminder' });
    }
  });
  return problems;
}

export function apiToolEntryOf(entry: ApiToolFileEntry): ApiToolPolicyEntry {
  const editable =
    entry.editable === undefined
      ? undefined
      : Object.entries(entry.editable).flatMap(([name, raw]) => {
          const parsed = parseArgumentConstraint(raw);
          return parsed.ok ? [{ name, constraint: parsed.constraint }] : [];
        });
  const remindMs = entry.remind === undefined ? undefined : [...entry.remind].sort((a, b) => a - b);
  return { ...(editable ? { editable } : {}), ...(remindMs ? { remindMs } : {}) };
}
