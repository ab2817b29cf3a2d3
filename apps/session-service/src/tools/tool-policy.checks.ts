// The checks the schema cannot make: against the registry (`tools:` is an allow-list), and
// across one entry's fields (a quorum, timers, an edit or an offer only where they mean
// something). Each problem names its path, which the loader turns into a line.
import { MAX_APPROVER_GROUPS, MAX_EDITABLE_ARGUMENTS, type OptionKey } from '@tollgate/protocol';
import type { ToolRegistry } from './tool-registry';
import { grantOfferOf } from './grant-offer';
import { apiToolProblems } from './api-tool-policy';
import type { PolicyFile, PolicyFileEntry } from './tool-policy.schema';

/** A problem at a path of the file (the loader finds its line). */
export interface PolicyProblem {
  path: PropertyKey[];
  problem: string;
}

export function checkAgainstRegistry(file: PolicyFile, registry: ToolRegistry): PolicyProblem[] {
  const problems: PolicyProblem[] = [];
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
function editableProblems(name: string, entry: PolicyFileEntry): PolicyProblem[] {
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

/** G3: an offer only means something where "Always allow" is offered. */
function offerProblems(name: string, entry: PolicyFileEntry): PolicyProblem[] {
  if (entry.always === undefined) return [];
  const at = (...path: PropertyKey[]) => ['tools', name, 'always', ...path];
  if (entry.mode !== 'approval' || (entry.options && !entry.options.includes('approve_always'))) {
    return [{ path: at(), problem: 'only applies to a tool whose prompt offers approve_always' }];
  }
  const offered = grantOfferOf(entry.always);
  return offered.ok ? [] : offered.problems.map((p) => ({ path: at(p.field), problem: p.problem }));
}

/** S22: the deadline and reminders only mean something on a prompt, and only in order. */
function timerProblems(name: string, entry: PolicyFileEntry): PolicyProblem[] {
  const problems: PolicyProblem[] = [];
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

const GRANT_OPTIONS: readonly OptionKey[] = ['approve_session', 'approve_always'];

/** G1: a quorum only means something on a prompt, and only one its approvers can reach. */
function quorumProblems(name: string, entry: PolicyFileEntry): PolicyProblem[] {
  const problems: PolicyProblem[] = [];
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
