import { type OptionKey, type Person, standardOptions } from '@tollgate/protocol';
import { decideTextAnswer, readAnswerWord, type AnswerablePrompt } from './text-answer.rules';

const alice: Person = { id: 'U_ALICE', displayName: 'Alice' };
const bob: Person = { id: 'U_BOB', displayName: 'Bob' };

function prompt(
  name: string,
  overrides: Partial<AnswerablePrompt['request']> = {},
): AnswerablePrompt & { name: string } {
  return {
    name,
    request: { requester: alice, principal: 'user', options: standardOptions(), ...overrides },
  };
}

const only = (...keys: OptionKey[]) => standardOptions().filter((o) => keys.includes(o.key));

describe('B16 — answers typed as text: reading the word', () => {
  it.each([
    ['approve', 'approve_once'],
    ['yes', 'approve_once'],
    ['y', 'approve_once'],
    ['ok', 'approve_once'],
    ['allow here', 'approve_session'],
    ['always', 'approve_always'],
    ['deny', 'deny'],
    ['no', 'deny'],
    ['n', 'deny'],
  ] as const)('B16 "%s" stands for %s', (text, optionKey) => {
    expect(readAnswerWord(text)).toEqual({ word: text, optionKey });
  });

  it.each([
    ['APPROVE', 'approve_once'],
    ['Yes', 'approve_once'],
    ['Allow Here', 'approve_session'],
    ['ALWAYS', 'approve_always'],
    ['No', 'deny'],
    ['N', 'deny'],
  ] as const)('B16 case does not matter: "%s" stands for %s', (text, optionKey) => {
    expect(readAnswerWord(text)?.optionKey).toBe(optionKey);
  });

  it.each([
    ['approve!', 'approve_once'],
    ['ok.', 'approve_once'],
    ['"yes"', 'approve_once'],
    ['  deny?!  ', 'deny'],
    ['*approve*', 'approve_once'],
    ['`always`', 'approve_always'],
    ['~no~', 'deny'],
    ['> yes', 'approve_once'],
    ['(allow  here)', 'approve_session'],
    ['allow\there', 'approve_session'],
    ['\u201cok\u201d\u2026', 'approve_once'],
    ['\u200byes\u200b', 'approve_once'],
    ['\uff59\uff45\uff53', 'approve_once'],
    ['approve\n', 'approve_once'],
  ] as const)('B16 surrounding punctuation is ignored: %j stands for %s', (text, optionKey) => {
    expect(readAnswerWord(text)?.optionKey).toBe(optionKey);
  });

  it.each([
    'approve it',
    'yes please',
    'no, thanks',
    'y.e.s',
    'app rove',
    'allowhere',
    'allow-here',
    'approved',
    'okay',
    'nope',
    'yes 👍',
    'approve\ndeny',
    '!write_note {"text":"ok"}',
    '',
    '...',
    `${'!'.repeat(70)}yes`,
  ])('B16 any other text is not an answer: %j', (text) => {
    expect(readAnswerWord(text)).toBeUndefined();
  });
});

describe('B16 — answers typed as text: deciding what the word does', () => {
  const approve = readAnswerWord('approve')!;
  const deny = readAnswerWord('no')!;
  const allowHere = readAnswerWord('allow here')!;
  const always = readAnswerWord('always')!;

  it('B16 with no prompt pending the word is an ordinary message', () => {
    expect(decideTextAnswer(approve, alice, [])).toEqual({ kind: 'message' });
  });

  it('B16 the sender’s one pending prompt is answered with the option the word stands for', () => {
    const mine = prompt('mine');
    expect(decideTextAnswer(approve, alice, [mine])).toEqual({
      kind: 'answer',
      prompt: mine,
      optionKey: 'approve_once',
    });
    expect(decideTextAnswer(deny, alice, [mine])).toMatchObject({ optionKey: 'deny' });
    expect(decideTextAnswer(allowHere, alice, [mine])).toMatchObject({
      optionKey: 'approve_session',
    });
    expect(decideTextAnswer(always, alice, [mine])).toMatchObject({
      optionKey: 'approve_always',
    });
  });

  it('B16 another person’s prompts do not count: the sender’s own one is answered', () => {
    const bobs = prompt('bobs', { requester: bob });
    const mine = prompt('mine');
    expect(
      decideTextAnswer(approve, alice, [bobs, mine, prompt('bobs2', { requester: bob })]),
    ).toMatchObject({ kind: 'answer', prompt: { name: 'mine' } });
  });

  it('B16 an automation prompt is any member’s to answer', () => {
    const automated = prompt('automated', { requester: bob, principal: 'automation' });
    expect(decideTextAnswer(approve, alice, [automated])).toMatchObject({
      kind: 'answer',
      prompt: { name: 'automated' },
    });
    // …and counts with the sender's own prompts.
    expect(decideTextAnswer(approve, alice, [automated, prompt('mine')])).toMatchObject({
      kind: 'hint',
      reason: 'several_prompts',
    });
  });

  it('B16 several prompts the sender may answer: a hint, nothing answered', () => {
    const decision = decideTextAnswer(approve, alice, [prompt('a'), prompt('b')]);
    expect(decision).toMatchObject({ kind: 'hint', reason: 'several_prompts' });
    if (decision.kind !== 'hint') throw new Error(decision.kind);
    expect(decision.text).toContain('2 requests');
    expect(decision.text).toContain('buttons');
    expect(decision.text).toContain('not sent');
  });

  it('B16 a word for an option the prompt does not offer: a hint naming the offered answers', () => {
    const decision = decideTextAnswer(always, alice, [
      prompt('narrow', { options: only('approve_once', 'deny') }),
    ]);
    expect(decision).toMatchObject({ kind: 'hint', reason: 'option_not_offered' });
    if (decision.kind !== 'hint') throw new Error(decision.kind);
    expect(decision.text).toContain('"always"');
    expect(decision.text).toContain('"approve", "deny"');
    expect(decision.text).toContain('not sent');
    expect(
      decideTextAnswer(allowHere, alice, [prompt('x', { options: only('approve_once') })]),
    ).toMatchObject({ kind: 'hint', reason: 'option_not_offered' });
    expect(
      decideTextAnswer(approve, alice, [prompt('x', { options: only('approve_session', 'deny') })]),
    ).toMatchObject({ kind: 'hint', reason: 'option_not_offered' });
  });

  it('B16 prompts pending for someone else only: a hint, never a message that would supersede them', () => {
    expect(decideTextAnswer(approve, bob, [prompt('alices')])).toMatchObject({
      kind: 'hint',
      reason: 'not_requester',
    });
  });
});

describe('A2 — typed answers to approval API prompts', () => {
  const yes = readAnswerWord('yes')!;

  it('A2 an approver named on the prompt answers it, though another person requested it', () => {
    const api = prompt('api', { requester: alice, approvers: [alice, bob] });
    expect(decideTextAnswer(yes, bob, [api])).toMatchObject({ kind: 'answer', prompt: api });
  });

  it('A2 someone who is neither requester nor approver is told it is not theirs', () => {
    const api = prompt('api', { requester: alice, approvers: [alice] });
    expect(decideTextAnswer(yes, bob, [api])).toMatchObject({
      kind: 'hint',
      reason: 'not_requester',
    });
  });
});

describe('G1 — typed answers to a prompt with a quorum', () => {
  const approve = readAnswerWord('approve')!;
  const quorum = { required: 2, approvals: [] };

  it('G1 a quorum without named approvers is any member’s to answer; the session counts it', () => {
    const open = prompt('open', { requester: bob, quorum });
    expect(decideTextAnswer(approve, alice, [open])).toMatchObject({
      kind: 'answer',
      prompt: { name: 'open' },
    });
  });

  it('G1 a quorum of named approvers is theirs only', () => {
    const named = prompt('named', { requester: bob, quorum, approvers: [bob] });
    expect(decideTextAnswer(approve, alice, [named])).toMatchObject({
      kind: 'hint',
      reason: 'not_requester',
    });
    expect(decideTextAnswer(approve, bob, [named])).toMatchObject({ kind: 'answer' });
  });

  it("G1 a quorum of a platform group is its members' as resolved at the post, not any member's", () => {
    const grouped = {
      ...prompt('grouped', { requester: bob, quorum, approverGroups: [{ id: 'S0OPS' }] }),
      approverMembers: { S0OPS: [alice.id] },
    };
    expect(decideTextAnswer(approve, alice, [grouped])).toMatchObject({ kind: 'answer' });
    const carol: Person = { id: 'U_CAROL' };
    expect(decideTextAnswer(approve, carol, [grouped])).toMatchObject({
      kind: 'hint',
      reason: 'not_requester',
    });
  });
});
