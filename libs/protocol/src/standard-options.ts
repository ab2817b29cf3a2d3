import { OPTION_KEYS, type Option, type OptionKey } from './option.schema';

/** The options of docs/protocol.md §3 as a policy offers them; a tool's policy may offer fewer. */
export const STANDARD_OPTIONS: Readonly<Record<OptionKey, Readonly<Option>>> = Object.freeze({
  approve_once: Object.freeze({ key: 'approve_once', label: 'Approve once', style: 'primary' }),
  approve_session: Object.freeze({
    key: 'approve_session',
    label: 'Allow in this chat',
    style: 'default',
  }),
  approve_always: Object.freeze({ key: 'approve_always', label: 'Always allow', style: 'default' }),
  deny: Object.freeze({ key: 'deny', label: 'Deny', style: 'danger' }),
});

/** The standard options for `keys`, in the canonical button order whatever order they come in. */
export function standardOptions(keys: readonly OptionKey[] = OPTION_KEYS): Option[] {
  return OPTION_KEYS.filter((key) => keys.includes(key)).map((key) => ({
    ...STANDARD_OPTIONS[key],
  }));
}
