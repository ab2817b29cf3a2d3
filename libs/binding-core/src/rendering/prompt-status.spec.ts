import type { ToolInteractionRequest } from '@tollgate/protocol';
import type { PromptView } from '../platform-adapter.port';
import { promptStatusLine, type StatusMarkup } from './prompt-status';

const markup: StatusMarkup = {
  bold: (t) => `*${t}*`,
  escape: (t) => t.replace(/</g, '&lt;'),
  mention: (p) => `@${p.id}`,
};
const request = {} as ToolInteractionRequest;

describe('promptStatusLine', () => {
  it('says nothing while pending, and "still valid" after a restart', () => {
    expect(promptStatusLine({ kind: 'pending', request }, markup)).toBeUndefined();
    expect(promptStatusLine({ kind: 'refreshed', request }, markup)).toMatch(
      /restarted.*still valid/,
    );
  });

  it('names the decision and who, in the platform markup', () => {
    const view = {
      kind: 'resolved',
      request,
      optionKey: 'deny',
      label: 'Deny <now>',
      resolvedBy: { id: 'U1' },
    } as const;
    expect(promptStatusLine(view, markup)).toBe('*Deny &lt;now>* by @U1');
  });

  it('G2 shows an edited approval as a diff, line by line, with who made it', () => {
    const view: PromptView = {
      kind: 'resolved',
      request,
      optionKey: 'approve_once',
      label: 'Approve once',
      resolvedBy: { id: 'U1' },
      edit: {
        changes: [{ name: 'path', from: '/srv/a', to: '/srv/a/<tmp>' }],
        argumentsHash: `sha256:${'0'.repeat(64)}`,
      },
    };
    expect(promptStatusLine(view, markup)).toBe(
      '*Approve once* by @U1, with edited arguments:\n• path: /srv/a → /srv/a/&lt;tmp>',
    );
  });

  it('keeps only the part of the reason the banner does not already say', () => {
    expect(
      promptStatusLine({ kind: 'expired', request, reason: 'this request has expired' }, markup),
    ).toBe(':hourglass: This request has expired.');
    expect(
      promptStatusLine(
        { kind: 'expired', request, reason: 'expired: its context could not be restored' },
        markup,
      ),
    ).toBe(':hourglass: This request has expired (its context could not be restored).');
    expect(
      promptStatusLine(
        { kind: 'abandoned', request, reason: 'superseded by a newer message' },
        markup,
      ),
    ).toBe(':no_entry_sign: This request was superseded (by a newer message).');
  });

  it('A2 says "Withdrawn by the agent" for an approval its agent cancelled, not "superseded"', () => {
    expect(
      promptStatusLine({ kind: 'abandoned', request, reason: 'Withdrawn by the agent' }, markup),
    ).toBe(':no_entry_sign: Withdrawn by the agent.');
  });
});
