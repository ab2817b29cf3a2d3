/** What a tool run produced: the result the model sees, and any session effect to journal. */
export interface ToolOutcome {
  readonly result: string;
  readonly note?: string;
}

export interface ToolRunContext {
  /** How many notes the session holds before this call. */
  readonly noteCount: number;
}

export interface Tool {
  readonly name: string;
  readonly description: string;
  /** The JSON Schema of its arguments, shown to the model; absent, any object. */
  readonly parameters?: Readonly<Record<string, unknown>>;
  /** What the approver reads on the prompt. */
  describe(args: Record<string, unknown>): string;
  run(args: Record<string, unknown>, context: ToolRunContext): Promise<ToolOutcome>;
}

/** A tool refused its arguments; the model sees the reason as the call's result. */
export class ToolArgumentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolArgumentError';
  }
}
