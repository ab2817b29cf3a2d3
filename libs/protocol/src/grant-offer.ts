import { z } from 'zod';
import { type ArgumentScope, describeScope, parseArgumentScope } from './argument-scope';
import { parseDuration } from './duration';
import { LIMITS } from './limits';

/**
 * G3: what "Always allow" gives, as a tool's policy sets it (`always:`) or, since 2026-12-01
 * (f), an approval API request (`always`, the same fields). Without one, the
 * grant is the blanket one of before: the tool, for ever, until revoked. With one, the grant
 * covers only calls whose arguments lie within `scope`, lapses `ttlMs` after it was given and
 * covers at most `uses` calls. The button says so ("Always allow path under /srv/notes · 8h ·
 * 2 uses"), so an approver sees what they give.
 *
 * ```yaml
 * write_file:
 *   mode: approval
 *   always:
 *     scope: { path: { prefix: /srv/notes } }
 *     ttl: 8h
 *     uses: 2
 *     label: Always allow notes (8 h, 2 uses)   # optional; the default is built as above
 * ```
 */
export interface GrantOffer {
  readonly scope?: ArgumentScope;
  readonly ttlMs?: number;
  readonly uses?: number;
  readonly label: string;
}

/** More is no longer a "number of uses" an approver can weigh. */
export const MAX_GRANT_USES = 1_000;

export const grantOfferSchema = z.strictObject(
  {
    scope: z.unknown().optional(),
    ttl: z.string({ error: 'must be a duration such as 30m, 8h or 2d' }).optional(),
    uses: z
      .number({ error: 'must be a whole number' })
      .int({ error: 'must be a whole number' })
      .min(1, { error: 'must be at least 1' })
      .max(MAX_GRANT_USES, { error: `must be at most ${MAX_GRANT_USES}` })
      .optional(),
    label: z.string({ error: 'must be text' }).min(1, { error: 'must not be empty' }).optional(),
  },
  { error: 'must be a map with scope, ttl, uses and, optionally, label' },
);

export type GrantOfferInput = z.infer<typeof grantOfferSchema>;

/** The offer, or the problems with it, each at the field it names. */
export function grantOfferOf(
  input: GrantOfferInput,
): { ok: true; offer: GrantOffer } | { ok: false; problems: { field: string; problem: string }[] } {
  const problems: { field: string; problem: string }[] = [];
  let scope: ArgumentScope | undefined;
  if (input.scope !== undefined) {
    const parsed = parseArgumentScope(input.scope);
    if (parsed.ok) scope = parsed.scope;
    else problems.push({ field: 'scope', problem: parsed.problem });
  }
  let ttlMs: number | undefined;
  if (input.ttl !== undefined) {
    const parsed = parseDuration(input.ttl);
    if (parsed.ok) ttlMs = parsed.ms;
    else problems.push({ field: 'ttl', problem: parsed.problem });
  }
  if (scope === undefined && input.ttl === undefined && input.uses === undefined) {
    problems.push({ field: 'scope', problem: 'an always offer needs a scope, a ttl or uses' });
  }
  const label =
    input.label ??
    [
      scope ? `Always allow ${describeScope(scope)}` : 'Always allow',
      ...(input.ttl === undefined ? [] : [input.ttl]),
      ...(input.uses === undefined ? [] : [`${input.uses} use${input.uses === 1 ? '' : 's'}`]),
    ].join(' · ');
  if (label.length > LIMITS.optionLabel) {
    problems.push({
      field: input.label === undefined ? 'scope' : 'label',
      problem: `makes a button label of ${label.length} characters (at most ${LIMITS.optionLabel}): set a shorter label`,
    });
  }
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    offer: {
      label,
      ...(scope ? { scope } : {}),
      ...(ttlMs === undefined ? {} : { ttlMs }),
      ...(input.uses === undefined ? {} : { uses: input.uses }),
    },
  };
}

/** The offer's problems as one line, or undefined: for a boundary that answers with one reason. */
export function grantOfferProblem(raw: unknown): string | undefined {
  const shaped = grantOfferSchema.safeParse(raw);
  if (!shaped.success)
    return shaped.error.issues
      .map((i) => `${i.path.join('.') || 'always'} ${i.message}`)
      .join('; ');
  const offer = grantOfferOf(shaped.data);
  return offer.ok ? undefined : offer.problems.map((p) => `${p.field} ${p.problem}`).join('; ');
}
