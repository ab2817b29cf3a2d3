/**
 * The lines a service process logged about one session, for a test's failure message: a prompt
 * that did not show on a slow CI run is told apart by these alone, since CI keeps no logs.
 */
export function sessionLogLines(
  outputs: readonly (string | undefined)[],
  sessionId: string,
  options: { last?: number; withWarnings?: boolean } = {},
): string[] {
  const { last = 6, withWarnings = false } = options;
  // Warnings without the session's id (a pool error, a stalled consumer) can be why it stopped.
  const warning = /"level":"(warn|error|fatal)"/;
  return outputs
    .flatMap((output) => (output ?? '').split('\n'))
    .filter((line) => line.includes(sessionId) || (withWarnings && warning.test(line)))
    .slice(-last)
    .map((line) => line.slice(0, 400));
}
