import { type Answer, error, ok } from './mattermost-api.answers';
import { str } from './mattermost-api.requests';
import type { MATTERMOST_FAKE_DEFAULTS, MattermostRoute } from './mattermost-api.types';
import type { MattermostInteractions } from './mattermost-interactions';
import type { MattermostPeople } from './mattermost-people';
import type { MattermostPostStore } from './mattermost-posts.store';

/**
 * How `MattermostApiFake` routes a request: which client URL and route a path is, which channel
 * the call is about (for the call log and scoped faults), and which handler answers it once
 * the bot token checks out. Apart from the fake, which keeps the transport (call log, faults,
 * latency), so the table of routes reads in one place.
 */

export const CLIENT_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
/** `/api/v4/<rest>`, or `/<client>/api/v4/<rest>` for a client's own URL. */
export const API_PATH = /^\/(?:([A-Za-z0-9_-]{1,64})\/)?api\/v4\/(.+)$/;

/** What the routes answer from; `MattermostApiFake` owns each part. */
export interface MattermostRouteTargets {
  readonly config: typeof MATTERMOST_FAKE_DEFAULTS;
  readonly posts: MattermostPostStore;
  readonly people: MattermostPeople;
  readonly interactions: MattermostInteractions;
}

/** The answer to a call whose Authorization is the bot's token; 401 for any other. */
export function dispatch(
  targets: MattermostRouteTargets,
  route: MattermostRoute,
  rest: string,
  query: URLSearchParams,
  body: unknown,
  authorization: string | undefined,
): Answer {
  const token = /^bearer\s+/i.test(authorization ?? '')
    ? authorization!.replace(/^bearer\s+/i, '')
    : undefined;
  if (token !== targets.config.token) {
    return error(401, 'api.context.session_expired.app_error', 'Invalid or expired session');
  }
  const parts = rest.split('?')[0].split('/');
  const record = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  switch (route) {
    case 'getMe':
      return ok(200, {
        id: targets.config.botUserId,
        username: targets.config.botUsername,
        is_bot: true,
      });
    case 'createPost':
      return targets.posts.createPost(record);
    case 'updatePost':
      return targets.posts.editPost(parts[1], record, 'update');
    case 'patchPost':
      return targets.posts.editPost(parts[1], record, 'patch');
    case 'getPost':
      return targets.posts.getPost(parts[1]);
    case 'getPostThread':
      return targets.posts.thread(parts[1]);
    case 'getChannelPosts':
      return targets.posts.channelPosts(parts[1], query);
    case 'createPostEphemeral':
      return targets.interactions.ephemeral(record);
    case 'getChannelMember':
      return targets.people.channelMember(parts[1], parts[3]);
    case 'getUser':
      return targets.people.user(parts[1]);
    case 'getProfilesInGroup':
      return targets.people.groupMembers(query);
    case 'openDialog':
      return targets.interactions.openDialog(record);
    default:
      return error(404, 'api.context.404.app_error', `no route ${rest}`);
  }
}

/** The channel a call is about; `postChannel` finds a stored post's. */
export function channelOf(
  route: MattermostRoute,
  rest: string,
  body: unknown,
  postChannel: (postId: string) => string | undefined,
): string | undefined {
  const record = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const parts = rest.split('/');
  switch (route) {
    case 'createPost':
      return str(record.channel_id);
    case 'createPostEphemeral':
      return str((record.post as Record<string, unknown> | undefined)?.channel_id);
    case 'updatePost':
    case 'patchPost':
    case 'getPost':
    case 'getPostThread':
      return postChannel(parts[1]);
    case 'getChannelPosts':
    case 'getChannelMember':
      return parts[1];
    default:
      return undefined;
  }
}

/** Which route a request to `/api/v4/<rest>` is. */
export function routeOf(method: string, rest: string): MattermostRoute {
  const path = rest.split('?')[0];
  if (method === 'POST' && path === 'posts') return 'createPost';
  if (method === 'POST' && path === 'posts/ephemeral') return 'createPostEphemeral';
  if (method === 'GET' && path === 'users/me') return 'getMe';
  if (method === 'GET' && /^users\/[^/]+$/.test(path)) return 'getUser';
  // Tollgate lists users only by group (`?in_group=`); other listings answer as for no group.
  if (method === 'GET' && path === 'users') return 'getProfilesInGroup';
  if (method === 'POST' && path === 'actions/dialogs/open') return 'openDialog';
  if (method === 'PUT' && /^posts\/[^/]+$/.test(path)) return 'updatePost';
  if (method === 'PUT' && /^posts\/[^/]+\/patch$/.test(path)) return 'patchPost';
  if (method === 'GET' && /^posts\/[^/]+$/.test(path)) return 'getPost';
  if (method === 'GET' && /^posts\/[^/]+\/thread$/.test(path)) return 'getPostThread';
  if (method === 'GET' && /^channels\/[^/]+\/posts$/.test(path)) return 'getChannelPosts';
  if (method === 'GET' && /^channels\/[^/]+\/members\/[^/]+$/.test(path)) return 'getChannelMember';
  return 'unknown';
}
