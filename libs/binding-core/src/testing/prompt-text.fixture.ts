/**
 * A4: a prompt text in the shape the session renders (tool, arguments, then the agent's words,
 * the agent, the approvers and the hash), whose arguments are made of what each platform's
 * escaping grows most, so that escaped it is far past every platform's limit.
 */
export const PROMPT_FOOTER = [
  'Agent says: Clean the build folder',
  'Agent: claude-code (build-bot) · session sess-1',
  'Approvers: Ada (U1)',
  'Arguments hash: sha256:0123456789ab',
];

export function oversizedPromptText(): string {
  const hostile = '&<>*_~`|\\'.repeat(150);
  const args = Array.from({ length: 12 }, (_, i) => `• key${i}: ${hostile}`);
  return ['Tool: Bash', 'Arguments:', ...args, ...PROMPT_FOOTER].join('\n');
}
