import { parseDuration } from '@tollgate/protocol';
import { parseToolPolicy, ToolPolicyFileError } from './tool-policy.loader';
import { builtInTools } from './tool-registry';

const registry = builtInTools();
const HOUR = 3_600_000;

function policy(...lines: string[]) {
  return parseToolPolicy(lines.join('\n'), 'policy.yaml', registry);
}

function problems(...lines: string[]): string[] {
  try {
    policy(...lines);
  } catch (error) {
    if (error instanceof ToolPolicyFileError) return error.message.split('; ');
    throw error;
  }
  throw new Error('the policy loaded');
}

describe('S22 — a deadline and reminders in the tool policy', () => {
  describe('durations', () => {
    it.each([
      ['30s', 30_000],
      ['90m', 90 * 60_000],
      ['24h', 24 * HOUR],
      ['1h30m', 1.5 * HOUR],
      ['2d', 48 * HOUR],
      ['1d12h', 36 * HOUR],
    ])('S22 %s is %i ms', (text, ms) => {
      expect(parseDuration(text)).toEqual({ ok: true, ms });
    });

    it.each([
      ['', 'must be a duration such as 30m, 8h or 2d, not ""'],
      ['24', 'must be a duration such as 30m, 8h or 2d, not "24"'],
      ['1 h', 'must be a duration such as 30m, 8h or 2d, not "1 h"'],
      ['1w', 'must be a duration such as 30m, 8h or 2d, not "1w"'],
      ['-1h', 'must be a duration such as 30m, 8h or 2d, not "-1h"'],
      ['30m1h', 'must give each unit once, largest first (as in 1h30m), not "30m1h"'],
      ['1h1h', 'must give each unit once, largest first (as in 1h30m), not "1h1h"'],
      ['0h', 'must be longer than zero, not "0h"'],
      ['367d', 'must be at most 366d, not "367d"'],
    ])('S22 refuses %j', (text, problem) => {
      expect(parseDuration(text)).toEqual({ ok: false, problem });
    });
  });

  it('S22 a tool without them has no timers: no timeout, the default', () => {
    expect(policy('tools:', '  write_note: { mode: approval }').entryFor('write_note')).toEqual(
      expect.not.objectContaining({ timers: expect.anything() }),
    );
  });

  it('S22 deadline, reminders (sorted) and onDeadline are read; onDeadline defaults to expire', () => {
    const read = policy(
      'tools:',
      '  write_note:',
      '    mode: approval',
      '    deadline: 24h',
      '    remind: [8h, 1h]',
    );
    expect(read.entryFor('write_note')?.timers).toEqual({
      deadlineMs: 24 * HOUR,
      onDeadline: 'expire',
      remindMs: [HOUR, 8 * HOUR],
    });
    const deny = policy(
      'tools:',
      '  write_note: { mode: approval, deadline: 2d, onDeadline: deny }',
    );
    expect(deny.entryFor('write_note')?.timers).toEqual({
      deadlineMs: 48 * HOUR,
      onDeadline: 'deny',
      remindMs: [],
    });
  });

  it('S22 reminders without a deadline remind and never end the prompt', () => {
    const read = policy('{"tools": {"write_note": {"mode": "approval", "remind": ["1h"]}}}');
    expect(read.entryFor('write_note')?.timers).toEqual({
      onDeadline: 'expire',
      remindMs: [HOUR],
    });
  });

  describe('a bad field names the file and the line', () => {
    it('S22 a deadline that is not a duration', () => {
      expect(
        problems('tools:', '  write_note:', '    mode: approval', '    deadline: tomorrow'),
      ).toEqual([
        'policy.yaml line 4: tools.write_note.deadline must be a duration such as 30m, 8h or 2d, not "tomorrow"',
      ]);
      expect(problems('tools:', '  write_note:', '    mode: approval', '    deadline: 24')).toEqual(
        [
          'policy.yaml line 4: tools.write_note.deadline must be a duration such as 30m, 8h or 2d, not 24',
        ],
      );
    });

    it('S22 a bad reminder, at its own line in a block list', () => {
      expect(
        problems(
          'tools:',
          '  write_note:',
          '    mode: approval',
          '    remind:',
          '      - 1h',
          '      - soon',
        ),
      ).toEqual([
        'policy.yaml line 6: tools.write_note.remind[1] must be a duration such as 30m, 8h or 2d, not "soon"',
      ]);
      expect(problems('tools:', '  write_note:', '    mode: approval', '    remind: 1h')).toEqual([
        'policy.yaml line 4: tools.write_note.remind must be a list of durations, as in [1h, 8h]',
      ]);
    });

    it('S22 a reminder at or after the deadline, and one given twice', () => {
      expect(
        problems(
          'tools:',
          '  write_note:',
          '    mode: approval',
          '    deadline: 8h',
          '    remind:',
          '      - 1h',
          '      - 60m',
          '      - 8h',
        ),
      ).toEqual([
        'policy.yaml line 7: tools.write_note.remind[1] repeats an earlier reminder',
        'policy.yaml line 8: tools.write_note.remind[2] must come before the deadline',
      ]);
    });

    it('S22 an unknown onDeadline, and onDeadline without a deadline', () => {
      expect(
        problems('tools:', '  write_note:', '    mode: approval', '    onDeadline: approve'),
      ).toEqual([
        'policy.yaml line 4: tools.write_note.onDeadline must be deny or expire, not "approve"',
      ]);
      expect(
        problems('tools:', '  write_note:', '    mode: approval', '    onDeadline: deny'),
      ).toEqual(['policy.yaml line 4: tools.write_note.onDeadline needs a deadline']);
    });

    it('S22 timers on a tool that never prompts', () => {
      expect(problems('tools:', '  echo:', '    mode: auto', '    deadline: 1h')).toEqual([
        'policy.yaml line 4: tools.echo.deadline only applies to a tool whose mode is approval (this one is auto)',
      ]);
    });
  });
});
