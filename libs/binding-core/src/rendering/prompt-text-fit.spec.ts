import { oversizedPromptText, PROMPT_FOOTER } from '../testing/prompt-text.fixture';
import { fitPromptText } from './prompt-text-fit';

const grow = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');

describe('A4 — fitting a prompt text to a platform', () => {
  it('A4 keeps a text that fits whole', () => {
    expect(fitPromptText('Tool: x\nArguments:\n• a: 1', 100, grow)).toBe(
      'Tool: x\nArguments:\n• a: 1',
    );
  });

  it('A4 cuts the arguments, never the footer, when the rendered text is too long', () => {
    const fitted = fitPromptText(oversizedPromptText(), 2_000, grow);
    expect(fitted.length).toBeLessThanOrEqual(2_000);
    expect(fitted.length).toBeGreaterThan(1_900);
    expect(fitted.endsWith(`\n${PROMPT_FOOTER.join('\n')}`)).toBe(true);
    expect(fitted).toMatch(/^Tool: Bash\nArguments:\n• key0: /);
    expect(fitted).toMatch(/… \(\d+ more characters\)\nAgent says: /);
  });

  it('A4 cuts a text without the footer at its end, as before', () => {
    const fitted = fitPromptText('x'.repeat(500), 100, (t) => t);
    expect(fitted).toMatch(/^x+… \(\d+ more characters\)$/);
    expect(fitted.length).toBeLessThanOrEqual(100);
  });

  it('A4 counts as the platform counts', () => {
    const runes = (t: string) => [...t].length;
    const fitted = fitPromptText(
      '😀'.repeat(300) + '\nArguments hash: sha256:0',
      100,
      (t) => t,
      runes,
    );
    expect(runes(fitted)).toBeLessThanOrEqual(100);
    expect(fitted.endsWith('\nArguments hash: sha256:0')).toBe(true);
  });
});
