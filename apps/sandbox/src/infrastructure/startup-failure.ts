/**
 * A reason `npm start` cannot go on that the person at the terminal can act on: printed as is,
 * without a stack trace, and the process exits 1.
 */
export class StartupFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupFailure';
  }
}
