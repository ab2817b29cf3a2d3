import { type Option, type OptionKey, standardOptions } from '@tollgate/protocol';

export type ApprovalMode = 'auto' | 'approval' | 'deny';

export interface ToolPolicyEntry {
  readonly mode: ApprovalMode;
  /** The options a prompt for this tool offers, in canonical order. */
  readonly options: readonly Option[];
}

export interface ToolPolicy {
  entryFor(toolName: string): ToolPolicyEntry | undefined;
}

const ALL_OPTIONS: readonly OptionKey[] = [
  'approve_once',
  'approve_session',
  'approve_always',
  'deny',
];

/**
 * PROTOCOL.md §5's built-in default: `echo` auto, `write_note` approval, and `delegate`
 * approval (docs/protocol.md §6: starting a sub-agent is itself an action someone allows).
 */
export function defaultToolPolicy(): ToolPolicy {
  const entries: Record<string, ToolPolicyEntry> = {
    echo: { mode: 'auto', options: standardOptions(ALL_OPTIONS) },
    write_note: { mode: 'approval', options: standardOptions(ALL_OPTIONS) },
    delegate: { mode: 'approval', options: standardOptions(ALL_OPTIONS) },
  };
  return { entryFor: (toolName) => entries[toolName] };
}
