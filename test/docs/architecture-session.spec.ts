import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ApprovalPhase, SessionEvent } from '@tollgate/session-read-model';

const ARCHITECTURE = readFileSync(join(__dirname, '..', '..', 'docs', 'architecture.md'), 'utf8');

/** One key per journaled event type: a type added to SessionEvent fails the typecheck here. */
const EVENT_TYPES = {
  SessionStarted: true,
  UserMessageReceived: true,
  ToolBatchStarted: true,
  ToolApprovalRequested: true,
  ToolApprovalResolved: true,
  ToolApprovalCounted: true,
  ToolApprovalRefused: true,
  ToolCallGranted: true,
  ToolExecutionStarted: true,
  ToolCallRecorded: true,
  ToolBatchAbandoned: true,
  SubAgentStarted: true,
  SubAgentsAwaited: true,
  SubAgentFinished: true,
  ToolApprovalReminded: true,
  PromptShown: true,
  ApiApprovalRequested: true,
  ApiApprovalDecided: true,
  ApiApprovalCounted: true,
  SessionRecovered: true,
  PendingApprovalsReannounced: true,
  TurnCompleted: true,
  TurnFailed: true,
  SessionQuarantined: true,
} satisfies Record<SessionEvent['type'], true>;

const PHASES = {
  NoActive: true,
  Running: true,
  WaitingForApprovals: true,
  RecoveredWaitingForApprovals: true,
  Redriving: true,
  Abandoning: true,
  WaitingForSubAgents: true,
} satisfies Record<ApprovalPhase, true>;

/** The text of the section whose heading starts with `heading`, up to the next heading. */
function section(heading: string): string {
  const start = ARCHITECTURE.indexOf(`\n${heading}`);
  if (start < 0) throw new Error(`docs/architecture.md has no section ${heading}`);
  const next = ARCHITECTURE.indexOf('\n#', start + heading.length + 1);
  return ARCHITECTURE.slice(start, next < 0 ? undefined : next);
}

describe('D5 — docs/architecture.md tells the session as the code has it', () => {
  it('D5 §3.1 names every journaled event type', () => {
    const text = section('### 3.1');
    expect(Object.keys(EVENT_TYPES).filter((type) => !text.includes(`\`${type}\``))).toEqual([]);
  });

  it("D5 §3.2's diagram names every phase of the approval turn", () => {
    const diagram = /```\n([\s\S]*?)```/.exec(section('### 3.2'))?.[1] ?? '';
    const named = new Set(diagram.match(/\b[A-Z][A-Za-z]+\b/g));
    expect(Object.keys(PHASES).filter((phase) => !named.has(phase))).toEqual([]);
  });
});
