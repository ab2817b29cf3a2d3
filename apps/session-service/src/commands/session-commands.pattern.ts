/** The pattern the session service's command consumer feeds (declared by SessionRuntime). */
export const SESSION_COMMANDS_PATTERN = 'session.commands';
