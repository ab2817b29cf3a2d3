import {
  type GrantOfferInput,
  grantOfferProblem,
  grantOfferSchema,
  type OptionKey,
} from '@tollgate/protocol';

/*
 * G3 for the approval API (docs/protocol.md §8.7, 2026-12-01 (f)): a request may say what its
 * "Always allow" gives — `{ scope?, ttl?, uses?, label? }`, the forms of a tool policy's
 * `always:` — so an approver can allow "this tool under /srv/notes, for 8 h, twice" instead of
 * the tool for ever. Refused with `invalid_always` when malformed, and when no "Always allow"
 * could be offered with it (not among the options, or a quorum, where no grant stands in).
 */

export type AlwaysVerdict =
  | { readonly ok: true; readonly always?: GrantOfferInput }
  | { readonly ok: false; readonly message: string };

export function readAlways(
  raw: unknown,
  asked: {
    readonly options: readonly OptionKey[];
    readonly quorum?: number;
    readonly separateApprover?: boolean;
  },
): AlwaysVerdict {
  if (raw === undefined || raw === null) return { ok: true };
  const problem = grantOfferProblem(raw);
  if (problem !== undefined) return { ok: false, message: `always: ${problem}` };
  if (!asked.options.includes('approve_always'))
    return { ok: false, message: 'always needs approve_always among the options' };
  if ((asked.quorum ?? 1) > 1 || asked.separateApprover === true)
    return {
      ok: false,
      message: 'always cannot be offered with a quorum or separateApprover (no grant is)',
    };
  // Checked above: the schema's own reading, so only its fields go on.
  return { ok: true, always: grantOfferSchema.parse(raw) };
}
