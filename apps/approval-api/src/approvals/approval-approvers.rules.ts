import type { ApprovalClient } from '@tollgate/approval-clients';
import { type ApproverGroup, LIMITS, MAX_APPROVER_GROUPS } from '@tollgate/protocol';

/*
 * Who a `POST /v1/approvals` body asks (docs/protocol.md §8, §9): person ids, and since
 * 2026-12-01 (f) platform groups `{ "group": <id>, "name"?: <shown> }` whose members the posting
 * binding resolves. A group is an approver the client must be allowed to ask like a person
 * (`clients create --approver <group id>`), so a client cannot reach an arbitrary group.
 */

export interface AskedApprovers {
  readonly persons: readonly string[];
  readonly groups: readonly ApproverGroup[];
}

/** A malformed entry (`invalid_approvers` / `invalid_approver_group`): the caller's 400. */
export class ApproversRefusal extends Error {
  constructor(
    readonly code: 'invalid_approvers' | 'invalid_approver_group',
    message: string,
  ) {
    super(message);
  }
}

// eslint-disable-next-line no-control-regex
const UNSTORABLE = /[\u0000\p{Cs}]/u;
const MAX_ID = 200;
const MAX_GROUP_NAME = 80;

/** The approvers the body names, or all of the client's persons when it names none. */
export function readApprovers(raw: unknown, client: ApprovalClient): AskedApprovers {
  if (raw === undefined || raw === null)
    return { persons: [...client.approvers].slice(0, LIMITS.approvers), groups: [] };
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > LIMITS.approvers)
    throw new ApproversRefusal(
      'invalid_approvers',
      'approvers must be a list of 1 to 20 person ids or groups',
    );
  const persons: string[] = [];
  const groups: ApproverGroup[] = [];
  for (const entry of raw) {
    if (typeof entry === 'object' && entry !== null && !Array.isArray(entry))
      groups.push(readGroup(entry as Record<string, unknown>));
    else if (isId(entry)) persons.push(entry);
    else
      throw new ApproversRefusal(
        'invalid_approvers',
        `approvers[] must be an id of at most ${MAX_ID} characters or {group, name}`,
      );
  }
  if (new Set(persons).size !== persons.length)
    throw new ApproversRefusal('invalid_approvers', 'approvers must not name a person twice');
  if (groups.length > MAX_APPROVER_GROUPS)
    throw new ApproversRefusal(
      'invalid_approver_group',
      `approvers may name at most ${MAX_APPROVER_GROUPS} groups`,
    );
  if (new Set(groups.map((g) => g.id)).size !== groups.length)
    throw new ApproversRefusal('invalid_approver_group', 'approvers must not name a group twice');
  return { persons, groups };
}

/** Every person and group asked is one the client was created (or updated) with. */
export function approversAllowedFor(client: ApprovalClient, asked: AskedApprovers): boolean {
  return [...asked.persons, ...asked.groups.map((g) => g.id)].every((id) =>
    client.approvers.includes(id),
  );
}

function readGroup(entry: Record<string, unknown>): ApproverGroup {
  const extra = Object.keys(entry).find((key) => key !== 'group' && key !== 'name');
  if (extra !== undefined)
    throw new ApproversRefusal('invalid_approver_group', 'a group takes only group and name');
  if (!isId(entry.group))
    throw new ApproversRefusal(
      'invalid_approver_group',
      `group must be the platform's group id, at most ${MAX_ID} characters`,
    );
  if (entry.name === undefined || entry.name === null) return { id: entry.group };
  if (
    typeof entry.name !== 'string' ||
    entry.name.length === 0 ||
    entry.name.length > MAX_GROUP_NAME ||
    UNSTORABLE.test(entry.name)
  )
    throw new ApproversRefusal(
      'invalid_approver_group',
      `a group's name must be 1 to ${MAX_GROUP_NAME} characters`,
    );
  return { id: entry.group, name: entry.name };
}

function isId(raw: unknown): raw is string {
  return typeof raw === 'string' && raw !== '' && raw.length <= MAX_ID && !UNSTORABLE.test(raw);
}
