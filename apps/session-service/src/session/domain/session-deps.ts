import type { ModelClient } from '../../model/model-client.port';
import type { ToolPolicy } from '../../tools/tool-policy';
import type { ToolRegistry } from '../../tools/tool-registry';
import type { ToolGrants } from './tool-grants.port';

/** The ports a session decision may consult: the model, the tools and their grants. */
export interface SessionDeps {
  readonly model: ModelClient;
  readonly tools: ToolRegistry;
  readonly policy: ToolPolicy;
  readonly grants: ToolGrants;
}

/** Bounds a model that keeps calling tools, so one message cannot loop forever. */
export const MAX_MODEL_ROUNDS_PER_TURN = 8;
