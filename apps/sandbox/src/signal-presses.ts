/**
 * A Ctrl-C in a terminal is sent to the whole foreground process group, so `npm start` gets
 * it from the terminal and again from npm, which forwards the signals it receives to its
 * script. Two within this window are one press.
 */
export const SAME_PRESS_MS = 1_000;

export type PressMeaning = 'drain' | 'same press' | 'kill';

/** What a stop signal means, given when the first one came (undefined: none yet). */
export function meaningOfSignal(firstAt: number | undefined, now: number): PressMeaning {
  if (firstAt === undefined) return 'drain';
  return now - firstAt < SAME_PRESS_MS ? 'same press' : 'kill';
}
