import { breakMarkdownLinks, breakMentions, ZERO_WIDTH_SPACE } from './untrusted-text';

describe('X5 untrusted text', () => {
  it('X5 breaks every @ from the name after it, so no mention word stays whole', () => {
    const broken = breakMentions('hi @channel @here @all @everyone a@b.c');
    expect(broken).not.toMatch(/@[a-z]/i);
    expect(broken.split(ZERO_WIDTH_SPACE).join('')).toBe('hi @channel @here @all @everyone a@b.c');
  });

  it('X5 leaves no `]` directly before `(`, `[` or `:`, whatever backslashes precede it', () => {
    const text = '[a](https://x) [b][r] [r]: https://y \\[c\\](https://z) \\\\[d\\\\](https://w)';
    const broken = breakMarkdownLinks(text);
    expect(broken).not.toMatch(/\][([:]/);
    expect(broken.split(ZERO_WIDTH_SPACE).join('')).toBe(text);
  });
});
