import type { ApprovalRecord } from '../approvals/approval.view';

/** What a runtime hook is told: run the tool, or not and why. */
export type HookVerdict =
  | {
      readonly behavior: 'allow';
      /** G2: an approver edited the arguments; the tool must run with exactly these. */
      readonly updatedInput?: Readonly<Record<string, unknown>>;
    }
  | { readonly behavior: 'deny'; readonly message: string };

const PLATFORM_NAMES: Record<string, string> = {
  slack: 'Slack',
  discord: 'Discord',
  mattermost: 'Mattermost',
};

/**
 * A decided approval as a hook's verdict. Only `approved` allows; every other end — a denial,
 * an expiry, a withdrawal — is a deny whose message says what happened, so the agent can tell
 * its user.
 */
export function verdictOf(record: ApprovalRecord): HookVerdict {
  const platform = PLATFORM_NAMES[record.route.platform] ?? record.route.platform;
  const decision = record.decision;
  switch (record.status) {
    case 'approved':
      return decision?.finalArguments === undefined
        ? { behavior: 'allow' }
        : { behavior: 'allow', updatedInput: decision.finalArguments };
    case 'denied': {
      const who = decision?.by.displayName ?? decision?.by.id ?? 'an approver';
      const reason = decision?.reason ? `: ${decision.reason}` : '';
      return { behavior: 'deny', message: `Denied by ${who} in ${platform}${reason}` };
    }
    case 'expired':
      return {
        behavior: 'deny',
        message: `The approval in ${platform} expired${decision?.reason ? ` (${decision.reason})` : ''}; the tool was not run`,
      };
    case 'cancelled':
      return { behavior: 'deny', message: 'The approval was withdrawn; the tool was not run' };
    case 'pending':
      return { behavior: 'deny', message: 'No decision yet; the tool was not run' };
  }
}

export function unansweredVerdict(holdSeconds: number, platform: string): HookVerdict {
  const where = PLATFORM_NAMES[platform] ?? platform;
  return {
    behavior: 'deny',
    message: `No one answered in chat (${where}) within ${holdSeconds} s; the request was withdrawn and the tool was not run`,
  };
}

export const RESTARTING_VERDICT: HookVerdict = {
  behavior: 'deny',
  message: 'Tollgate is restarting; the request was withdrawn and the tool was not run — ask again',
};

/**
 * Claude Code's hook output (and Codex's, which copies it) for a PermissionRequest. Only an
 * edited approval carries `updatedInput` (G2), and only where the runtime takes it (Claude
 * Code): a runtime that would ignore it must not run the unedited call, so it is denied.
 */
export function permissionRequestOutput(
  verdict: HookVerdict,
  options: { readonly updatedInput: boolean } = { updatedInput: true },
): Record<string, unknown> {
  return {
    hookSpecificOutput: {
      hookEventName: 'PermissionRequest',
      decision: decisionOf(verdict, options.updatedInput),
    },
  };
}

function decisionOf(verdict: HookVerdict, takesUpdatedInput: boolean): Record<string, unknown> {
  if (verdict.behavior === 'deny') return { behavior: 'deny', message: verdict.message };
  if (verdict.updatedInput === undefined) return { behavior: 'allow' };
  return takesUpdatedInput
    ? { behavior: 'allow', updatedInput: verdict.updatedInput }
    : {
        behavior: 'deny',
        message:
          'Approved with edited arguments, which this runtime cannot apply; the tool was not run',
      };
}

/** Claude Code's hook output for a PreToolUse. */
export function preToolUseOutput(verdict: HookVerdict): Record<string, unknown> {
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: verdict.behavior,
      permissionDecisionReason:
        verdict.behavior === 'allow'
          ? verdict.updatedInput === undefined
            ? 'Approved in chat through Tollgate'
            : 'Approved in chat through Tollgate, with edited arguments'
          : verdict.message,
      ...(verdict.behavior === 'allow' && verdict.updatedInput !== undefined
        ? { updatedInput: verdict.updatedInput }
        : {}),
    },
  };
}
