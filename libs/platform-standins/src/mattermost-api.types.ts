import type { FaultScope, TransportFault } from './fault-queue';

/**
 * The public shapes of `MattermostApiFake`: its defaults, the faults and routes a test names,
 * the calls it records, the posts it stores and the snapshot it hands out. Kept apart from the
 * fake so the post store, the people directory and the routes can share them without
 * importing the fake itself; `mattermost-api.fake.ts` re-exports them all.
 */

export const MATTERMOST_FAKE_DEFAULTS = {
  token: 'mmfaketollgatebottoken0000',
  botUserId: 'tollgatebot000000000000000',
  botUsername: 'tollgate',
  teamId: 'tollgateteam00000000000000',
} as const;

/**
 * A transport fault, or a refusal no retry fixes: a 4xx AppError (default 403
 * `api.context.permissions.app_error`).
 */
export type MattermostFault = TransportFault | { refuse: 400 | 403 | 404; id?: string };

/** What the fake calls each route; a fault or a count can name one, or `'*'` for any. */
export type MattermostRoute =
  | 'createPost'
  | 'updatePost'
  | 'patchPost'
  | 'getPost'
  | 'getPostThread'
  | 'getChannelPosts'
  | 'createPostEphemeral'
  | 'getChannelMember'
  | 'getMe'
  | 'getUser'
  | 'openDialog'
  | 'getProfilesInGroup'
  | 'unknown';

export interface MattermostApiCall {
  route: MattermostRoute;
  method: string;
  path: string;
  /** Which `apiUrlFor(client)` the call came through; undefined for `apiUrl`. */
  client?: string;
  /** The channel the call is about, when known. */
  channel?: string;
  body: unknown;
  /** The Authorization header as sent. */
  authorization?: string;
  at: Date;
  fault?: MattermostFault;
}

export interface PostAction {
  id?: string;
  type?: string;
  name?: string;
  style?: string;
  integration?: { url?: string; context?: Record<string, unknown> };
  [key: string]: unknown;
}

export interface MessageAttachment {
  text?: string;
  color?: string;
  actions?: PostAction[];
  [key: string]: unknown;
}

export type PostProps = Record<string, unknown> & { attachments?: MessageAttachment[] };

export interface MattermostPostVersion {
  message: string;
  props: PostProps;
  at: Date;
}

export interface FakeMattermostPost extends MattermostPostVersion {
  id: string;
  channel_id: string;
  root_id: string;
  user_id: string;
  create_at: number;
  update_at: number;
  /** Successful updates and patches. */
  edits: number;
  /** Every version, oldest first; the last one is the current state. */
  history: MattermostPostVersion[];
}

export interface MattermostEphemeral {
  user_id: string;
  channel_id: string;
  root_id: string;
  message: string;
  at: Date;
}

export type MattermostFaultScope = FaultScope;

/** What `MattermostApiFake.snapshot` keeps. */
export interface MattermostApiFakeSnapshot {
  readonly posts: Map<string, FakeMattermostPost>;
  readonly ephemerals: MattermostEphemeral[];
  readonly memberships: Map<string, Set<string>>;
  readonly lastCreateAt: number;
}

export interface MattermostUserPost {
  channel_id: string;
  user_id: string;
  message: string;
  root_id?: string;
  /** Generated when omitted. */
  id?: string;
  props?: PostProps;
}
