import { type Quorum, standardOptions, type ToolInteractionRequest } from '@tollgate/protocol';
import type { PromptView } from '../platform-adapter.port';

/** Every mass-mention form of the three platforms, as a model or a chat user could write it. */
export const MASS_MENTIONS = [
  '@channel',
  '@here',
  '@all',
  '@everyone',
  '@Channel!',
  '<!channel>',
  '<!here>',
  '<!everyone>',
  '<!subteam^S0123ABC>',
  '<!subteam^S0123ABC|@oncall>',
  '<@&123456789012345678>',
  '<@U0BOB>',
  '<@987654321098765432>',
] as const;

/** Link text naming one address while another hides behind it. */
export const FORGED_LINKS = [
  '<https://evil.example/login|bank.com>',
  '[bank.com](https://evil.example/login)',
  '[bank.com](<https://evil.example/login>)',
  '\\[bank.com\\](https://evil.example/login)',
  '[bank.com][r]\n[r]: https://evil.example/login',
  '![bank.com](https://evil.example/pixel.png)',
] as const;

export const HOSTILE = [...MASS_MENTIONS, ...FORGED_LINKS].join(' ');

/**
 * A request whose every model- or user-controlled field carries `text`, and the views that
 * show a reason, a label or an approver. `requester` and `resolver` are the platform's own
 * people, rendered as the binding means them.
 */
export function hostileViews(
  base: ToolInteractionRequest,
  text: string,
  resolver: { id: string; displayName?: string },
): PromptView[] {
  const request: ToolInteractionRequest = {
    ...base,
    toolName: `write_note ${text}`,
    displayText: `Write a note: ${text}`,
    requester: { ...base.requester, displayName: `Eve ${text}` },
    options: standardOptions().map((o) => ({ ...o, label: `${o.label} ${text}`.slice(0, 75) })),
  };
  return [
    { kind: 'pending', request },
    { kind: 'refreshed', request },
    { kind: 'abandoned', request, reason: `superseded: ${text}` },
    { kind: 'expired', request, reason: `expired: ${text}` },
    {
      kind: 'resolved',
      request,
      optionKey: 'approve_once',
      label: `Approve once ${text}`,
      resolvedBy: resolver,
    },
    // G1: the tally names approvers by the names the platform gave their clicks (ids no
    // platform mentions by, so the names themselves are shown).
    { kind: 'pending', request: { ...request, quorum: hostileQuorum(request, text) } },
    {
      kind: 'resolved',
      request,
      optionKey: 'deny',
      label: `Deny ${text}`,
      resolvedBy: resolver,
      approvals: hostileQuorum(request, text).approvals,
    },
  ];
}

function hostileQuorum(request: ToolInteractionRequest, text: string): Quorum {
  const at = request.occurredAt;
  return {
    required: 3,
    approvals: [{ by: { id: 'approver-1', displayName: `Mallory ${text}` }, at }],
    waitingFor: [{ id: 'approver-2', displayName: `Trent ${text}` }],
    separateFrom: request.requester,
  };
}
