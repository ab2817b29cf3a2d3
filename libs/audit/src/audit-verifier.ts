import { entryHash, GENESIS_HASH } from './audit-chain';
import type { AuditEntry } from './audit-entry';

export interface AuditBreak {
  readonly seq: string | null;
  readonly day: string;
  readonly n: number | null;
  readonly problem: string;
}

interface DayHead {
  readonly day: string;
  readonly headHash: string;
  readonly count: number;
  readonly pruned: boolean;
}

/**
 * Recomputes the chains entry by entry, in chain order, keeping only the current day's last
 * hash: any edit of a row changes its hash, any removal or reordering breaks the next
 * entry's `prev_hash`, and a removed tail no longer reaches the day's recorded head.
 * The first break found is the one reported.
 */
export class AuditVerifier {
  private day?: string;
  private prevHash = GENESIS_HASH;
  private expectedN = 1;
  private entries = 0;
  private readonly seenDays = new Set<string>();
  firstBreak?: AuditBreak;

  constructor(private readonly heads: ReadonlyMap<string, DayHead>) {}

  get verified(): number {
    return this.entries;
  }

  /** Checks one entry; false once a break was found (later entries are not looked at). */
  add(entry: AuditEntry): boolean {
    if (this.firstBreak) return false;
    if (entry.day !== this.day) {
      if (this.day !== undefined && !this.closeDay()) return false;
      this.day = entry.day;
      this.seenDays.add(entry.day);
      this.prevHash = GENESIS_HASH;
      this.expectedN = 1;
    }
    const at = { seq: entry.seq, day: entry.day, n: entry.n };
    if (entry.n !== this.expectedN) {
      return this.broken({
        ...at,
        problem: `expected entry ${this.expectedN} of the day here: an entry before it was removed or moved`,
      });
    }
    if (entry.prevHash !== this.prevHash) {
      return this.broken({
        ...at,
        problem: 'its prev_hash is not the hash of the entry before it',
      });
    }
    if (entryHash(entry) !== entry.hash) {
      return this.broken({ ...at, problem: 'its content does not match its hash (edited)' });
    }
    this.prevHash = entry.hash;
    this.expectedN += 1;
    this.entries += 1;
    return true;
  }

  /** Ends the walk: the last day, and days recorded with entries none of which were read. */
  finish(): AuditBreak | undefined {
    if (!this.firstBreak && this.day !== undefined) this.closeDay();
    if (!this.firstBreak) {
      for (const head of this.heads.values()) {
        if (!head.pruned && head.count > 0 && !this.seenDays.has(head.day)) {
          this.broken({
            seq: null,
            day: head.day,
            n: 1,
            problem: `the day records ${head.count} entries and none is left`,
          });
          break;
        }
      }
    }
    return this.firstBreak;
  }

  private closeDay(): boolean {
    const day = this.day ?? '';
    const head = this.heads.get(day);
    if (!head) {
      return this.broken({ seq: null, day, n: null, problem: 'the day has no recorded head' });
    }
    if (head.headHash !== this.prevHash || head.count !== this.expectedN - 1) {
      return this.broken({
        seq: null,
        day,
        n: this.expectedN,
        problem: `the chain ends at entry ${this.expectedN - 1} but the day's head records ${head.count}: entries were removed from its end`,
      });
    }
    return true;
  }

  private broken(found: AuditBreak): false {
    this.firstBreak = found;
    return false;
  }
}
