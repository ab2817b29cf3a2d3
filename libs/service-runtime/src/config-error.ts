/** A configuration problem, naming every variable that is missing or malformed. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly { variable: string; problem: string }[]) {
    super(
      `invalid configuration: ${problems.map((p) => `${p.variable}: ${p.problem}`).join('; ')}`,
    );
    this.name = 'ConfigError';
  }
}
