import { listedToolName, SERVER_NAME, splitToolName } from './tool-names';

describe('M1 — tool names', () => {
  it('lists <server>__<tool> and splits at the first separator', () => {
    expect(listedToolName('fs', 'read__file')).toBe('fs__read__file');
    expect(splitToolName('fs__read__file')).toEqual({ server: 'fs', tool: 'read__file' });
  });

  it('finds no server in a name without one', () => {
    expect(splitToolName('echo')).toBeUndefined();
    expect(splitToolName('__echo')).toBeUndefined();
    expect(splitToolName('fs__')).toBeUndefined();
  });

  it('keeps the separator out of server names', () => {
    expect(['fs', 'my_fs', 'git-hub', 'A1'].every((n) => SERVER_NAME.test(n))).toBe(true);
    expect(['a__b', '_x', '', 'has space', 'x'.repeat(65)].some((n) => SERVER_NAME.test(n))).toBe(
      false,
    );
  });
});
