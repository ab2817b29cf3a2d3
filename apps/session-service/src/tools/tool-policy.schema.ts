// The policy file's shape (docs/protocol.md §5) as zod schemas, with the messages a person
// fixing the file reads. Apart from the loader so the shape reads in one place; the checks
// that need the registry or span fields are in tool-policy.checks.ts.
import { isStorableIdentifier, LIMITS, MAX_QUORUM, OPTION_KEYS } from '@tollgate/protocol';
import { z } from 'zod';
import type { ApprovalMode, OnDeadline } from './tool-policy';
import { grantOfferSchema } from './grant-offer';
import { apiToolEntrySchema } from './api-tool-policy';
import { duration, editableField, remindField, shown } from './policy-fields';

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

export const fileSchema = z.strictObject(
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

export type PolicyFile = z.infer<typeof fileSchema>;
/** One tool's entry under `tools:`, as the schema passed it. */
export type PolicyFileEntry = PolicyFile['tools'][string];

function oneOf(values: readonly string[]): string {
  return `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`;
}
