/**
 * Why this file exists: a parked handler (DeliveredMessage.park) waits without its slot, so
 * "how many handlers run" and "how many held messages are parked" move together and must
 * never drift; every change to either count goes through here (docs/scenarios.md D4).
 */

/** A held message as the slots see it: `parked` is set only by HandlerSlots. */
export interface Parkable {
  readonly settling: boolean;
  parked: boolean;
}

export class HandlerSlots {
  private running = 0;
  private parkedCount = 0;

  constructor(
    private readonly maxInFlight: number,
    /** Past this many parked handlers, a park waits in its slot. */
    private readonly maxParked: number,
  ) {}

  /** Handler slots free now. */
  free(): number {
    return this.maxInFlight - this.running;
  }

  /** Held messages that are parked: they hold no slot and do not count as held. */
  parked(): number {
    return this.parkedCount;
  }

  /** A handler starts: it takes a slot. */
  start(): void {
    this.running += 1;
  }

  /** A handler ended: its slot is freed, or, given up on while parked, its park ends. */
  end(entry: Parkable): void {
    if (entry.parked) {
      entry.parked = false;
      this.parkedCount -= 1;
    } else {
      this.running -= 1;
    }
  }

  /** Gives the entry's slot up while it waits; false: it waits in its slot instead. */
  park(entry: Parkable): boolean {
    if (entry.parked || entry.settling || this.parkedCount >= this.maxParked) return false;
    entry.parked = true;
    this.parkedCount += 1;
    this.running -= 1;
    return true;
  }

  /** The wait is over: the handler carries on at once, in a slot again. */
  unpark(entry: Parkable): void {
    if (!entry.parked) return;
    entry.parked = false;
    this.parkedCount -= 1;
    this.running += 1;
  }
}
