import { Injectable } from '@nestjs/common';

/** A failure the service cannot work past; the process that runs it must end. */
export class FatalFailure extends Error {
  override readonly name = 'FatalFailure';

  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
  }
}

/**
 * Where a service reports a fatal failure instead of exiting: only the entry point that
 * started it (bootstrapService) ends the process, so a service stays testable in-process, and
 * what ends it is logged once, by one hand. A failure reported before the entry point
 * listens is kept and handed over when it does.
 */
@Injectable()
export class FatalFailures {
  private handler?: (failure: FatalFailure) => void;
  private early?: FatalFailure;

  report(message: string, cause: unknown): void {
    const failure = new FatalFailure(message, { cause });
    if (this.handler !== undefined) this.handler(failure);
    else this.early ??= failure;
  }

  /** For the entry point; the first failure only (the process is ending after it). */
  onFatal(handler: (failure: FatalFailure) => void): void {
    let handled = false;
    this.handler = (failure) => {
      if (handled) return;
      handled = true;
      handler(failure);
    };
    if (this.early !== undefined) this.handler(this.early);
  }
}
