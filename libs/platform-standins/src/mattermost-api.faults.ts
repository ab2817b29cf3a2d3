import type { ServerResponse } from 'node:http';
import type { LocalHttpServer } from './local-http-server';
import { type Answer, appError, send, sendJson } from './mattermost-api.answers';
import type { MattermostFault } from './mattermost-api.types';

/**
 * How `MattermostApiFake` answers a call that drew a fault: the 5xx, 429 and 4xx a failing
 * server or its proxy sends without applying the call, and the held or silent answers that do
 * apply it. Apart from the fake so each MattermostFault's meaning reads in one place.
 */

/** `answer` applies the call; it runs only for the faults whose call reaches the server. */
export async function answerWithFault(
  http: LocalHttpServer,
  res: ServerResponse,
  fault: MattermostFault,
  answer: () => Answer,
): Promise<void> {
  if ('status' in fault) {
    sendJson(res, fault.status, appError(fault.status, 'fake.outage', 'fake Mattermost outage'));
  } else if ('rateLimit' in fault) {
    sendJson(res, 429, appError(429, 'api.context.rate_limit', 'too many requests'), {
      'Retry-After': String(fault.rateLimit),
    });
  } else if ('refuse' in fault) {
    sendJson(
      res,
      fault.refuse,
      appError(fault.refuse, fault.id ?? 'api.context.permissions.app_error', 'refused'),
    );
  } else if ('hangMs' in fault) {
    if (!(await http.pause(fault.hangMs, res))) return;
    send(res, answer());
  } else {
    const result = answer();
    if (fault.answerAfterMs === undefined) await http.pause(Infinity, res);
    else if (await http.pause(fault.answerAfterMs, res)) send(res, result);
  }
}
