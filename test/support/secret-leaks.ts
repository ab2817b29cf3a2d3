/** A secret found in captured output, and the line it was on (the secret itself masked). */
export interface SecretLeak {
  readonly secret: string;
  readonly line: string;
}

/**
 * Every occurrence of any of `secrets` in `output`, as written or percent-encoded (how a
 * password shows in a URL). The secret is masked in what is returned, so a failing test's
 * report is not a leak of its own.
 */
export function findSecretLeaks(output: string, secrets: Iterable<string>): SecretLeak[] {
  const leaks: SecretLeak[] = [];
  const lines = output.split('\n');
  for (const secret of new Set(secrets)) {
    if (secret === '') throw new Error('an empty secret would be found everywhere');
    const forms = [...new Set([secret, encodeURIComponent(secret)])];
    for (const line of lines) {
      if (forms.some((form) => line.includes(form))) {
        leaks.push({
          secret: `${secret.slice(0, 4)}…(${secret.length})`,
          line: forms.reduce((masked, form) => masked.split(form).join('<SECRET>'), line),
        });
      }
    }
  }
  return leaks;
}

/** The values of secret-named variables (`…TOKEN`, `…SECRET`, `…PASSWORD`, `…KEY` but not `…PUBLIC_KEY`). */
export function secretValuesOf(env: Record<string, string>): string[] {
  return Object.entries(env)
    .filter(([name]) => /(TOKEN|SECRET|PASSWORD|KEY)$/.test(name) && !/PUBLIC_KEY$/.test(name))
    .map(([, value]) => value);
}
