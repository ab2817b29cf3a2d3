import type { Conversation } from '@tollgate/protocol';
import { parseToolPolicy } from '../../tools/tool-policy.loader';
import { builtInTools } from '../../tools/tool-registry';
import {
  defaultDeps,
  eventTypes,
  outputsOf,
  REQUESTER,
  SessionGiven,
} from './testing/session-given';
import type { GrantUse, SessionEvent } from '@tollgate/session-read-model';
import type { AlwaysGrantInForce, GrantClaim, ToolGrants } from './tool-grants.port';

/** One person's "Always allow" for write_note, held as the table holds it. */
class OneGrant implements ToolGrants {
  constructor(public grant: AlwaysGrantInForce | undefined) {}

  async isAlwaysAllowed(): Promise<boolean> {
    throw new Error('a scoped grant is read through alwaysGrant');
  }

  async alwaysGrant(
    _where: Conversation,
    personId: string,
    toolName: string,
    now: Date,
  ): Promise<AlwaysGrantInForce | undefined> {
    const g = this.grant;
    if (!g || personId !== REQUESTER.id || toolName !== 'write_note') return undefined;
    if (g.usesLeft === 0 || (g.expiresAt !== undefined && Date.parse(g.expiresAt) <= +now)) {
      return undefined;
    }
    return g;
  }

  /** What the store's UPDATE does: take one if one is left of the grant that was read. */
  readonly claim = async (claim: GrantClaim): Promise<number | undefined> => {
    const g = this.grant;
    if (!g || g.grantedAt !== claim.grantedAt || !g.usesLeft) return undefined;
    this.grant = { ...g, usesLeft: g.usesLeft - 1 };
    return g.usesLeft - 1;
  };
}

const GRANTED_AT = '2024-05-01T11:00:00.000Z';

function sessionWith(grant: AlwaysGrantInForce): { session: SessionGiven; grants: OneGrant } {
  const grants = new OneGrant(grant);
  return { session: new SessionGiven({ ...defaultDeps(), grants }, grants.claim), grants };
}

function grantedUses(decision: { events: readonly { event: SessionEvent }[] }): GrantUse[] {
  return decision.events.flatMap(({ event }) =>
    event.type === 'ToolCallGranted' ? [event.grant] : [],
  );
}

describe('G3 — grants with scope and lifetime, as the session decides', () => {
  it('G3 a pattern grant covers a matching call and not a non-matching one', async () => {
    const { session } = sessionWith({
      grantedAt: GRANTED_AT,
      scope: { text: { pattern: 'todo: .*' } },
    });

    const covered = await session.message('!write_note {"text":"todo: milk"}');
    expect(outputsOf(covered.outputs, 'ToolInteractionRequest')).toEqual([]);
    expect(grantedUses(covered)).toEqual([
      {
        kind: 'always',
        personId: REQUESTER.id,
        grantedAt: GRANTED_AT,
        scope: { text: { pattern: 'todo: .*' } },
      },
    ]);
    expect(eventTypes(covered)).toContain('ToolExecutionStarted');

    const asked = await session.message('!write_note {"text":"rm -rf /"}');
    expect(outputsOf(asked.outputs, 'ToolInteractionRequest')).toMatchObject([
      { toolName: 'write_note' },
    ]);
    expect(grantedUses(asked)).toEqual([]);
    expect(session.notes).toEqual(['todo: milk']);
  });

  it('G3 a 2-use grant covers two calls and asks on the third', async () => {
    const { session, grants } = sessionWith({ grantedAt: GRANTED_AT, usesLeft: 2 });

    const first = await session.message('!write_note {"text":"a"}');
    const second = await session.message('!write_note {"text":"b"}');
    const third = await session.message('!write_note {"text":"c"}');

    expect(grantedUses(first)).toMatchObject([{ usesLeft: 1 }]);
    expect(grantedUses(second)).toMatchObject([{ usesLeft: 0 }]);
    expect(outputsOf(third.outputs, 'ToolInteractionRequest')).toHaveLength(1);
    expect(session.notes).toEqual(['a', 'b']);
    expect(grants.grant?.usesLeft).toBe(0);
  });

  it('G3 a use another replica took between the read and the claim is not spent twice: the call asks', async () => {
    const { session, grants } = sessionWith({ grantedAt: GRANTED_AT, usesLeft: 1 });
    const read = grants.alwaysGrant.bind(grants);
    grants.alwaysGrant = async (...args) => {
      const seen = await read(...args);
      grants.grant = { ...grants.grant!, usesLeft: 0 };
      return seen;
    };

    const asked = await session.message('!write_note {"text":"a"}');

    expect(outputsOf(asked.outputs, 'ToolInteractionRequest')).toHaveLength(1);
    expect(eventTypes(asked)).not.toContain('ToolCallGranted');
    expect(session.notes).toEqual([]);
  });

  it('G3 a grant whose stored scope this version cannot read covers nothing', async () => {
    const { session } = sessionWith({
      grantedAt: GRANTED_AT,
      scope: { text: { glob: '*' } },
    });
    const asked = await session.message('!write_note {"text":"a"}');
    expect(outputsOf(asked.outputs, 'ToolInteractionRequest')).toHaveLength(1);
  });

  it('G3 the prompt offers the policy\'s grant on its "Always allow" button and journals the offer', async () => {
    const policy = parseToolPolicy(
      [
        'tools:',
        '  write_note:',
        '    mode: approval',
        '    always: { scope: { text: { pattern: "todo: .*" } }, ttl: 8h, uses: 2 }',
      ].join('\n'),
      'policy.yaml',
      builtInTools(),
    );
    const session = new SessionGiven({ ...defaultDeps(), policy });

    const asked = await session.message('!write_note {"text":"todo: a"}');

    const [prompt] = outputsOf(asked.outputs, 'ToolInteractionRequest');
    expect(prompt.options.find((o) => o.key === 'approve_always')?.label).toBe(
      'Always allow text matching todo: .* · 8h · 2 uses',
    );
    const requested = asked.events.find((e) => e.event.type === 'ToolApprovalRequested');
    expect(requested?.event).toMatchObject({
      grantOffer: { scope: { text: { pattern: 'todo: .*' } }, ttlMs: 8 * 3_600_000, uses: 2 },
    });
    expect(session.state.requested[prompt.callId]?.grantOffer).toEqual({
      scope: { text: { pattern: 'todo: .*' } },
      ttlMs: 8 * 3_600_000,
      uses: 2,
    });
  });

  it('G4 an answer journals whether it was clicked or typed', async () => {
    const session = new SessionGiven();
    await session.message('!write_note {"text":"a"}');
    const typed = await session.respond('call_2_1', 'approve_once', { via: 'text' });
    await session.message('!write_note {"text":"b"}');
    const clicked = await session.respond('call_9_1', 'deny');
    expect(typed.events.find((e) => e.event.type === 'ToolApprovalResolved')?.event).toMatchObject({
      via: 'text',
    });
    expect(
      clicked.events.find((e) => e.event.type === 'ToolApprovalResolved')?.event,
    ).toMatchObject({ via: 'click' });
  });
});
