/** A gate the fake model holds its answers behind until the test opens it. */
export class ModelGate {
  readonly closed: Promise<void>;
  open!: () => void;

  constructor() {
    this.closed = new Promise((resolve) => (this.open = resolve));
  }
}
