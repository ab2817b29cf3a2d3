import type { Command } from './commands.schema';
import type { CallOutput, Output } from './outputs.schema';
import type { CommandKind, OutputEvent, Subjects } from './subjects';

export function commandSubjectKind(command: Command): CommandKind {
  switch (command.type) {
    case 'UserMessage':
      return 'message';
    case 'ToolInteractionResponse':
      return 'response';
    case 'JoinSession':
      return 'join';
    case 'ToolInteractionUndeliverable':
      return 'undeliverable';
    case 'ToolInteractionShown':
      return 'shown';
    case 'ApprovalRequest':
      return 'approval';
    case 'ApprovalCancel':
      return 'cancel';
  }
}

export function callOutputEvent(output: CallOutput): OutputEvent {
  switch (output.type) {
    case 'ToolInteractionRequest':
      return 'request';
    case 'ToolInteractionUpdate':
      return 'update';
    case 'ToolInteractionResolved':
      return 'resolved';
    case 'ToolInteractionRejected':
      return 'rejected';
  }
}

/**
 * Where a command is published: its platform is the one of its conversation, except for the
 * approval API's commands, which go under `api` (only approval-api may publish there).
 */
export function commandSubject(subjects: Subjects, command: Command): string {
  if (command.type === 'ApprovalRequest') return subjects.apiCommand(command.sessionId, 'approval');
  if (command.type === 'ApprovalCancel') return subjects.apiCommand(command.sessionId, 'cancel');
  return subjects.command(
    command.conversation.platform,
    command.sessionId,
    commandSubjectKind(command),
  );
}

/** Where an output is published: its platform is the one of its conversation. */
export function outputSubject(subjects: Subjects, output: Output): string {
  const { platform } = output.conversation;
  if (output.type === 'TextOutput') {
    return subjects.textOutput(platform, output.sessionId);
  }
  return subjects.callOutput(platform, output.sessionId, output.callId, callOutputEvent(output));
}
