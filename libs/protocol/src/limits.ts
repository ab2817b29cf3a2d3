/** Size limits of docs/protocol.md §1, §3 and §4, in UTF-16 code units as JavaScript counts them. */
export const LIMITS = {
  text: 40_000,
  displayText: 12_000,
  callId: 256,
  optionKey: 64,
  optionLabel: 75,
  commandId: 200,
  /** A platform's error code as `ToolInteractionUndeliverable` carries it. */
  undeliverableReason: 500,
  /**
   * A channel or message id of `ToolInteractionShown` (Slack `C…`/`ts`, Discord snowflakes,
   * Mattermost's 26-character ids): two fit the command id `shown:<platform>:<channel>:<message>`.
   */
  platformMessageId: 80,
  /** A sub-agent's name as `agent.name` carries it. */
  agentName: 64,
  /** The approval API (docs/protocol.md, 2026-12-01 (b)). */
  clientName: 100,
  apiToolName: 200,
  /** Bytes of the arguments' canonical JSON (256 KiB). */
  apiArgumentsBytes: 262_144,
  apiSummary: 2_000,
  agentSession: 200,
  approvers: 20,
} as const;
