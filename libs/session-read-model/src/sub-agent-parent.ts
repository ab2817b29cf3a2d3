/** The durable link a child session keeps to the `delegate` call that started it (S19–S21). */
export interface SubAgentParent {
  readonly sessionId: string;
  readonly callId: string;
  /** The name the prompts show: "sub-agent <name> (for call <callId>)". */
  readonly name: string;
}
