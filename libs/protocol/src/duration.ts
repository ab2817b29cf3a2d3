const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** A year and a day: past that a deadline is a typo, not a policy. */
export const MAX_DURATION_MS = 366 * UNIT_MS.d;

/**
 * A duration of a tool policy or of an API approval's `deadline`: one or more `<whole number><unit>` parts, unit `s`, `m`, `h` or `d`,
 * largest first (`24h`, `90m`, `1h30m`, `2d`). The milliseconds, or what is wrong with it.
 */
export function parseDuration(
  text: string,
): { ok: true; ms: number } | { ok: false; problem: string } {
  const parts = [...text.matchAll(/(\d{1,6})([smhd])/g)];
  const shown = JSON.stringify(text);
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) {
    return { ok: false, problem: `must be a duration such as 30m, 8h or 2d, not ${shown}` };
  }
  const units = parts.map((p) => p[2] as keyof typeof UNIT_MS);
  const descending = units.every((u, i) => i === 0 || UNIT_MS[u] < UNIT_MS[units[i - 1]]);
  if (!descending) {
    return {
      ok: false,
      problem: `must give each unit once, largest first (as in 1h30m), not ${shown}`,
    };
  }
  const ms = parts.reduce(
    (sum, p) => sum + Number(p[1]) * UNIT_MS[p[2] as keyof typeof UNIT_MS],
    0,
  );
  if (ms === 0) return { ok: false, problem: `must be longer than zero, not ${shown}` };
  if (ms > MAX_DURATION_MS) return { ok: false, problem: `must be at most 366d, not ${shown}` };
  return { ok: true, ms };
}
