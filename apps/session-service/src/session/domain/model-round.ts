import type { ProviderMessage } from '@tollgate/session-read-model';
import type { SessionRecorder } from './session-recorder';
import { MAX_MODEL_ROUNDS_PER_TURN } from './session-deps';
import { sessionTools } from './sub-agent.runner';
import type { TurnConfig, TurnEffect } from './turn-effects';

/**
 * A model round: everything decided so far is committed first (`model-calling`), so the wait
 * holds nothing and a crash resumes the turn from the journal; the model is shown `messages`
 * (a redrive's context and results) or else the session's history, read after that commit.
 * A model that keeps calling tools is stopped after MAX_MODEL_ROUNDS_PER_TURN rounds.
 */
export function nextModelRound(
  recorder: SessionRecorder,
  config: TurnConfig,
  round: number,
  messages?: readonly ProviderMessage[],
): TurnEffect | undefined {
  const { phase } = recorder.current.turn;
  if (phase !== 'Running' && phase !== 'Redriving') return undefined;
  if (round >= MAX_MODEL_ROUNDS_PER_TURN) {
    const reason = `the model kept calling tools after ${MAX_MODEL_ROUNDS_PER_TURN} rounds`;
    recorder.record({ type: 'TurnFailed', reason }, [
      { type: 'TextOutput', text: `The turn stopped: ${reason}.`, role: 'notice' },
    ]);
    return undefined;
  }
  if (messages) return callModel(recorder, config, round, messages, 'model-calling');
  return { type: 'ReadHistory', commitFirst: 'model-calling', purpose: 'model', round };
}

export function callModel(
  recorder: SessionRecorder,
  config: TurnConfig,
  round: number,
  messages: readonly ProviderMessage[],
  commitFirst: 'model-calling' | undefined,
): TurnEffect {
  const turn = recorder.current.turn;
  return {
    type: 'CallModel',
    ...(commitFirst ? { commitFirst } : {}),
    round,
    request: {
      messages,
      turnSeq: turn.phase === 'NoActive' ? 0 : turn.turnSeq,
      tools: sessionTools(recorder, config)
        .list()
        .map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),
    },
  };
}
