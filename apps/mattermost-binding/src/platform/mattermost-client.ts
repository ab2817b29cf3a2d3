import { Client4, ClientError } from '@mattermost/client';
import type { Options } from '@mattermost/types/client4';
import { agentFetch } from '@tollgate/service-runtime';

type Transport = (
  url: string,
  options: Options,
) => Promise<{ response: Response; headers: Map<string, string>; data: unknown }>;

/**
 * A Client4 error that also says what HTTP said: its status (the AppError body's `status_code`
 * may be missing when a proxy or rate limiter answered) and its Retry-After.
 */
export class MattermostApiError extends ClientError {
  constructor(
    baseUrl: string,
    data: ConstructorParameters<typeof ClientError>[1],
    readonly httpStatus: number,
    readonly retryAfterMs?: number,
  ) {
    super(baseUrl, data);
    this.name = 'MattermostApiError';
  }
}

/**
 * Client4 with a deadline on every call. Client4 has no retries (good: JetStream retries), but
 * also no timeout, no way to inject a fetch, and its errors drop the HTTP status and headers.
 * So its one transport method, which every REST call goes through, is replaced by one that
 * does the same thing with an AbortSignal and keeps the status and Retry-After.
 */
export class MattermostClient extends Client4 {
  constructor(options: { url: string; token: string; timeoutMs: number }) {
    super();
    this.setUrl(options.url);
    this.setToken(options.token);
    this.setUserAgent('tollgate-mattermost-binding');
    this.setIncludeCookies(false);
    // node:http over a keep-alive Agent, as every binding's platform calls (D6).
    const send = agentFetch();
    const transport: Transport = async (url, init) => {
      const deadline = AbortSignal.timeout(options.timeoutMs);
      const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
      const response = await send(url, this.getOptions({ ...init, signal }));
      const headers = new Map<string, string>();
      response.headers.forEach((value, key) => headers.set(key, value));
      let data: unknown;
      try {
        // As Client4 itself: JSON only when the Content-Type is exactly application/json.
        data =
          response.headers.get('Content-Type') === 'application/json'
            ? await response.json()
            : await response.text();
      } catch (error) {
        if (error instanceof Error && /abort|timeout/i.test(error.name)) throw error;
        throw new ClientError(
          this.getUrl(),
          { message: 'Received invalid response from the server.', url },
          error,
        );
      }
      if (response.ok || init.ignoreStatus) return { response, headers, data };
      const body = (typeof data === 'object' && data !== null ? data : {}) as Record<
        string,
        unknown
      >;
      throw new MattermostApiError(
        this.getUrl(),
        {
          message: typeof body.message === 'string' ? body.message : String(data).slice(0, 200),
          server_error_id: typeof body.id === 'string' ? body.id : undefined,
          status_code: typeof body.status_code === 'number' ? body.status_code : response.status,
          detailed_error: typeof body.detailed_error === 'string' ? body.detailed_error : '',
          url,
        },
        response.status,
        retryAfterMs(response.headers.get('Retry-After')),
      );
    };
    // Client4 declares it private; it is an instance field, so replacing it here is enough.
    (this as unknown as { doFetchWithResponse: Transport }).doFetchWithResponse = transport;
  }

  /** G2: `POST /api/v4/actions/dialogs/open`, which Client4 does not offer. */
  openInteractiveDialog(request: {
    trigger_id: string;
    url: string;
    dialog: Record<string, unknown>;
  }): Promise<unknown> {
    return this.doFetch(`${this.getBaseRoute()}/actions/dialogs/open`, {
      method: 'post',
      body: JSON.stringify(request),
    });
  }
}

function retryAfterMs(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}
