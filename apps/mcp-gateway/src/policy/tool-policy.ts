import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';

export const VERDICTS = ['ask', 'allow', 'deny'] as const;
export type ToolVerdict = (typeof VERDICTS)[number];

export interface GatewayPolicy {
  /** For tools named nowhere else. */
  readonly default: ToolVerdict;
  /** For tools whose annotations say `readOnlyHint: true`; absent, they take the default. */
  readonly readOnly?: ToolVerdict;
  /** By listed name (`<server>__<tool>`); beats both of the above. */
  readonly tools: Readonly<Record<string, ToolVerdict>>;
}

/**
 * What the gateway does with a call to `listed`. A tool named in `tools` gets exactly that:
 * an operator who writes `fs__read_file: ask` means it even though the server calls the tool
 * read-only. `readOnlyHint` is the server's claim, so it only relaxes the default when the
 * operator opted in with `readOnly`.
 */
export function verdictFor(
  policy: GatewayPolicy,
  listed: string,
  annotations: ToolAnnotations | undefined,
): ToolVerdict {
  const named = policy.tools[listed];
  if (named !== undefined) return named;
  if (annotations?.readOnlyHint === true && policy.readOnly !== undefined) return policy.readOnly;
  return policy.default;
}
