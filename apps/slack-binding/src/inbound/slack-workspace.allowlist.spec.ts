import { checkSlackAllowlist } from './slack-workspace.allowlist';

const event = (team: string, app: string) =>
  Buffer.from(JSON.stringify({ type: 'event_callback', team_id: team, api_app_id: app }));
const interaction = (team: string, app: string) =>
  Buffer.from(
    new URLSearchParams({
      payload: JSON.stringify({ type: 'block_actions', team: { id: team }, api_app_id: app }),
    }).toString(),
  );

describe('checkSlackAllowlist', () => {
  it('X17 allows anything when no list is set', () => {
    expect(checkSlackAllowlist({ teamIds: [], appIds: [] }, event('T2', 'A2'))).toEqual({
      ok: true,
    });
  });

  it.each([
    ['an event', event],
    ['an interaction', interaction],
  ])('X17 refuses %s from another workspace or app, and takes the listed ones', (_kind, body) => {
    const allow = { teamIds: ['T1'], appIds: ['A1'] };
    expect(checkSlackAllowlist(allow, body('T1', 'A1'))).toEqual({ ok: true });
    expect(checkSlackAllowlist(allow, body('T2', 'A1'))).toEqual({
      ok: false,
      reason: 'team_not_allowed',
    });
    expect(checkSlackAllowlist(allow, body('T1', 'A2'))).toEqual({
      ok: false,
      reason: 'app_not_allowed',
    });
  });

  it('X17 refuses a body that names no workspace when a list is set', () => {
    const allow = { teamIds: ['T1'], appIds: [] };
    expect(checkSlackAllowlist(allow, Buffer.from('{}'))).toEqual({
      ok: false,
      reason: 'team_not_allowed',
    });
    expect(checkSlackAllowlist(allow, Buffer.from('not json'))).toEqual({
      ok: false,
      reason: 'team_not_allowed',
    });
    expect(checkSlackAllowlist(allow, undefined)).toEqual({
      ok: false,
      reason: 'team_not_allowed',
    });
  });
});
