import type { DiscordMethod } from './discord-api.types';

/**
 * Which Discord REST call a request is: the URL shape the stand-in answers and the table from
 * method and path to the call a fault or a filter names, with the ids the path carries. Apart
 * from the serving so the routes Discord has can be read in one place.
 */

/** `/api/v10/<route>`, or `/<client>/api/v10/<route>` for a client's own URL. */
export const API_PATH = /^\/(?:([A-Za-z0-9_-]{1,64})\/)?api\/v(\d+)(\/.*)$/;

export interface Params {
  channel?: string;
  message?: string;
  app?: string;
  token?: string;
  guild?: string;
}

export function routeOf(
  httpMethod: string,
  path: string,
): { method: DiscordMethod | 'unknown'; params: Params } {
  let m: RegExpExecArray | null;
  if ((m = /^\/channels\/(\d+)\/messages$/.exec(path))) {
    if (httpMethod === 'POST') return { method: 'createMessage', params: { channel: m[1] } };
    if (httpMethod === 'GET') return { method: 'listMessages', params: { channel: m[1] } };
  }
  if ((m = /^\/channels\/(\d+)\/messages\/(\d+)$/.exec(path)) && httpMethod === 'PATCH') {
    return { method: 'editMessage', params: { channel: m[1], message: m[2] } };
  }
  if ((m = /^\/webhooks\/(\d+)\/([^/]+)$/.exec(path)) && httpMethod === 'POST') {
    return { method: 'createFollowup', params: { app: m[1], token: m[2] } };
  }
  if (
    (m = /^\/webhooks\/(\d+)\/([^/]+)\/messages\/@original$/.exec(path)) &&
    httpMethod === 'PATCH'
  ) {
    return { method: 'editOriginal', params: { app: m[1], token: m[2] } };
  }
  if (path === '/users/@me/channels' && httpMethod === 'POST')
    return { method: 'createDm', params: {} };
  if (path === '/users/@me' && httpMethod === 'GET') return { method: 'getMe', params: {} };
  if ((m = /^\/guilds\/(\d+)\/members$/.exec(path)) && httpMethod === 'GET') {
    return { method: 'listGuildMembers', params: { guild: m[1] } };
  }
  if (
    (m = /^\/applications\/(\d+)(?:\/guilds\/(\d+))?\/commands$/.exec(path)) &&
    httpMethod === 'PUT'
  ) {
    return {
      method: 'overwriteCommands',
      params: { app: m[1], ...(m[2] === undefined ? {} : { guild: m[2] }) },
    };
  }
  return { method: 'unknown', params: {} };
}
