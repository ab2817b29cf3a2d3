import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Approval } from './approval';
import { type ApprovalApiClient, ApprovalApiError } from './approval-api.client';
import { argumentsHashOf, idempotencyKeyOf } from './arguments-hash';
import { nextStep, stillPendingText } from './held-call.decider';

export interface GatedCall {
  /** The MCP session the call came in on: the approval's `agent.session`. */
  readonly session: string;
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
  readonly signal: AbortSignal;
  /** Sent after every `progressEverySeconds` still pending, when the client gave a progress token. */
  readonly progress?: (count: number, message: string) => Promise<void>;
  /** Runs the tool upstream once the approval is redeemed. */
  forward(): Promise<CallToolResult>;
}

export interface GatedCallSettings {
  readonly agentName: string;
  readonly holdSeconds: number;
  readonly progressEverySeconds: number;
  readonly now?: () => number;
}

/** Generations beyond this many used-up approvals of one identical call are not walked. */
const MAX_GENERATIONS = 1_000;

/**
 * A call to an `ask` tool: finds or creates its approval, holds the call up to `holdSeconds`
 * while it is pending, and runs the tool only after redeeming it with the call's own
 * arguments hash. Nothing here remembers more than which approvals were already answered:
 * the approval itself lives in the approval API, so a restarted gateway finds it again.
 */
export class GatedCallUseCase {
  private readonly generations = new Map<string, number>();
  private readonly reported = new Set<string>();

  constructor(
    private readonly api: ApprovalApiClient,
    private readonly settings: GatedCallSettings,
  ) {}

  async run(call: GatedCall): Promise<CallToolResult> {
    const now = this.settings.now ?? Date.now;
    const holdEnds = now() + this.settings.holdSeconds * 1000;
    const hash = argumentsHashOf(call.arguments);
    const callKey = `${call.session}\n${call.tool}\n${hash}`;
    let generation = this.generations.get(callKey) ?? 0;
    let progressCount = 0;
    try {
      for (let walked = 0; walked < MAX_GENERATIONS; walked += 1) {
        let approval: Approval = await this.api.create(
          idempotencyKeyOf(call.session, call.tool, hash, generation),
          {
            tool: call.tool,
            arguments: call.arguments,
            agent: { name: this.settings.agentName, session: call.session },
          },
        );
        let step = nextStep(approval, this.reported.has(approval.id));
        while (step.kind === 'wait') {
          const remaining = (holdEnds - now()) / 1000;
          if (remaining <= 0 || call.signal.aborted) {
            return errorResult(stillPendingText(approval, this.settings.holdSeconds));
          }
          approval = await this.api.get(
            approval.id,
            Math.min(remaining, this.settings.progressEverySeconds),
            call.signal,
          );
          step = nextStep(approval, this.reported.has(approval.id));
          if (step.kind === 'wait' && call.progress) {
            progressCount += 1;
            await call.progress(progressCount, `Waiting for approval ${approval.id} in chat`);
          }
        }
        switch (step.kind) {
          case 'refuse':
            this.reported.add(approval.id);
            return errorResult(step.text);
          case 'ask_again':
            generation += 1;
            this.generations.set(callKey, generation);
            continue;
          case 'redeem': {
            const redeemed = await this.api.redeem(approval.id, hash);
            this.reported.add(approval.id);
            if (redeemed.kind === 'refused') {
              if (redeemed.code === 'already_redeemed') {
                generation += 1;
                this.generations.set(callKey, generation);
                continue;
              }
              return errorResult(
                `Approval ${approval.id} cannot be used: ${redeemed.code} ${redeemed.message}`.trim(),
              );
            }
            return await call.forward();
          }
        }
      }
      return errorResult(
        `Too many earlier approvals of this identical call; the tool did not run.`,
      );
    } catch (error) {
      if (error instanceof ApprovalApiError) {
        return errorResult(`The tool did not run: ${error.message}.`);
      }
      throw error;
    }
  }
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
