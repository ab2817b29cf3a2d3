// Loads TOOL_POLICY_FILE at start: reads it, parses it (schema: tool-policy.schema.ts), checks
// it against the registry (tool-policy.checks.ts) and builds the ToolPolicy
// (tool-policy.build.ts); a bad file is a ConfigError naming the file and the line.
import { readFileSync } from 'node:fs';
import { ConfigError } from '@tollgate/service-runtime';
import { LineCounter, parseDocument } from 'yaml';
import { defaultToolPolicy, type ToolPolicy } from './tool-policy';
import type { ToolRegistry } from './tool-registry';
import { API_TOOL_UNKNOWN_HINT } from './api-tool-policy';
import { shown } from './policy-fields';
import { policyOf, withMcpDefault } from './tool-policy.build';
import { checkAgainstRegistry } from './tool-policy.checks';
import { byLine, describe, lineOf } from './tool-policy.lines';
import { fileSchema } from './tool-policy.schema';

/**
 * `TOOL_POLICY_FILE` (docs/protocol.md §5), YAML or JSON (JSON is YAML, so one parser serves both
 * and gives line numbers for either):
 *
 * ```yaml
 * tools:
 *   echo: { mode: auto }
 *   write_note:
 *     mode: approval
 *     options: [approve_once, approve_always, deny]   # default: all four
 *     deadline: 24h          # S22, optional: default no timeout
 *     remind: [1h, 8h]       # optional: thread replies mentioning the requester
 *     onDeadline: expire     # or deny; only with a deadline, default expire
 *     always:                # G3, optional: what "Always allow" gives (grant-offer.ts)
 *       scope: { path: { prefix: /srv/notes } }
 *       ttl: 8h
 *       uses: 2
 *     quorum: 2              # G1, optional: distinct approvals needed (default 1)
 *     approvers: [U01, { id: U02, name: Bob }, { group: S03, name: ops }]   # optional: who may
 *                            # approve (default anyone); a group: its members as the binding resolves them
 *     separateApprover: true # optional: the requester may deny but not approve their call
 *     editable:              # G2, optional: "Edit & approve", each argument inside its constraint
 *       path: { prefix: /srv/notes }
 *       mode: { enum: [read, append] }
 * apiTools:                  # optional: approval API requests, by the tool name the agent sends
 *   Write:                   # only editable and remind (api-tool-policy.ts)
 *     editable: { file_path: { prefix: /srv/notes } }
 * ```
 *
 * With a quorum, approvers or `separateApprover`, a prompt offers only approve_once and deny: a
 * grant ("allow in this chat", "always allow") would let one person stand in for the quorum.
 *
 * `tools:` is an allow-list: a tool it names that the registry lacks is an error, and a
 * registry tool it leaves out is refused by policy, as if listed with `mode: deny`. `apiTools:`
 * names tools the agents run themselves, so the registry has no say there.
 */

/** What is wrong with a policy file and where; the message names the file and the line. */
export class ToolPolicyFileError extends Error {
  constructor(
    readonly file: string,
    readonly problems: readonly { readonly line?: number; readonly problem: string }[],
  ) {
    super(
      problems
        .map((p) =>
          p.line === undefined ? `${file}: ${p.problem}` : `${file} line ${p.line}: ${p.problem}`,
        )
        .join('; '),
    );
    this.name = 'ToolPolicyFileError';
  }
}

/** Reads and checks the policy file once, at start. */
export function loadToolPolicy(file: string, registry: ToolRegistry): ToolPolicy {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new ToolPolicyFileError(file, [{ problem: `cannot be read (${reason})` }]);
  }
  return parseToolPolicy(text, file, registry);
}

export function parseToolPolicy(text: string, file: string, registry: ToolRegistry): ToolPolicy {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const lineAt = (offset: number) => lines.linePos(offset).line;
  if (doc.errors.length > 0) {
    throw new ToolPolicyFileError(
      file,
      doc.errors.map((e) => ({
        line: lineAt(e.pos[0]),
        problem: `not valid YAML or JSON: ${e.message}`,
      })),
    );
  }
  let content: unknown;
  try {
    content = doc.toJS() ?? undefined;
  } catch (error) {
    // An alias to no anchor, or too many aliases; the parser does not say where.
    const reason = error instanceof Error ? error.message : String(error);
    throw new ToolPolicyFileError(file, [{ problem: `cannot be read as data: ${reason}` }]);
  }
  const parsed = fileSchema.safeParse(content);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]] : issue.path;
      const problem =
        issue.code === 'unrecognized_keys'
          ? `has unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map(shown).join(', ')}${
              issue.path[0] === 'apiTools' && issue.path.length === 2
                ? ` ${API_TOOL_UNKNOWN_HINT}`
                : ''
            }`
          : issue.message;
      return { line: lineOf(doc, lineAt, path), problem: describe(issue.path, problem) };
    });
    throw new ToolPolicyFileError(file, byLine(problems));
  }
  const problems = checkAgainstRegistry(parsed.data, registry).map(({ path, problem }) => ({
    line: lineOf(doc, lineAt, path),
    problem: describe(path, problem),
  }));
  if (problems.length > 0) throw new ToolPolicyFileError(file, byLine(problems));
  return policyOf(parsed.data, registry);
}

/**
 * The policy file is configuration too: loaded with the environment, a bad file stops the
 * start the way a bad variable does, exit 1 naming the variable, the file and the line.
 * Without a file, the built-in policy applies.
 */
export function withToolPolicy<C extends { readonly TOOL_POLICY_FILE?: string }>(
  config: C,
  registry: ToolRegistry,
): C & { readonly toolPolicy: ToolPolicy } {
  if (!config.TOOL_POLICY_FILE) {
    return { ...config, toolPolicy: withMcpDefault(defaultToolPolicy(), registry) };
  }
  try {
    return { ...config, toolPolicy: loadToolPolicy(config.TOOL_POLICY_FILE, registry) };
  } catch (error) {
    if (!(error instanceof ToolPolicyFileError)) throw error;
    throw new ConfigError([{ variable: 'TOOL_POLICY_FILE', problem: error.message }]);
  }
}
