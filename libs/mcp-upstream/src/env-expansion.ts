import { randomBytes } from 'node:crypto';

/**
 * `${VAR}` in a config value is read from the environment after the YAML is parsed, so a
 * secret with YAML-special characters cannot change the document's shape. The expanded
 * values are reported back as secrets: whatever came from the environment is kept out of logs.
 */
export interface Expansion<T> {
  readonly value: T;
  /** Variables referenced but unset (or empty: an empty secret is a mistake, not a password). */
  readonly missing: readonly string[];
  readonly secrets: readonly string[];
}

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

export function expandEnv<T>(
  value: T,
  env: Readonly<Record<string, string | undefined>>,
): Expansion<T> {
  const missing = new Set<string>();
  const secrets = new Set<string>();
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') {
      return node.replace(REFERENCE, (_match, name: string) => {
        const found = env[name];
        if (found === undefined || found === '') {
          missing.add(name);
          return '';
        }
        secrets.add(found);
        return found;
      });
    }
    if (Array.isArray(node)) return node.map(walk);
    if (node !== null && typeof node === 'object') {
      return Object.fromEntries(Object.entries(node).map(([key, inner]) => [key, walk(inner)]));
    }
    return node;
  };
  const expanded = walk(value) as T;
  return { value: expanded, missing: [...missing].sort(), secrets: [...secrets] };
}

/**
 * Parses YAML whose values may be written `${VAR}` unquoted, as in
 * `{ key: ${TOLLGATE_API_KEY} }` — which YAML would read as a nested flow map. Each reference
 * is parsed as an inert placeholder and put back as `${VAR}` afterwards, for `expandEnv`.
 */
export function parseYamlKeepingReferences(
  text: string,
  parseYaml: (text: string) => unknown,
): unknown {
  const nonce = randomBytes(6).toString('hex');
  const placeholder = new RegExp(`tgenv${nonce}_([A-Za-z_][A-Za-z0-9_]*)_${nonce}`, 'g');
  const parsed = parseYaml(
    text.replace(REFERENCE, (_match, name: string) => `tgenv${nonce}_${name}_${nonce}`),
  );
  const restore = (node: unknown): unknown => {
    if (typeof node === 'string')
      return node.replace(placeholder, (_match, name: string) => `\${${name}}`);
    if (Array.isArray(node)) return node.map(restore);
    if (node !== null && typeof node === 'object') {
      return Object.fromEntries(
        Object.entries(node).map(([key, inner]) => [restore(key), restore(inner)]),
      );
    }
    return node;
  };
  return restore(parsed);
}
