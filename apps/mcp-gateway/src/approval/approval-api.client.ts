import type { Approval } from './approval';

export interface ApprovalRequestBody {
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
  readonly agent: { readonly name: string; readonly session: string };
}

export type RedeemOutcome =
  | { readonly kind: 'redeemed'; readonly approval: Approval }
  | { readonly kind: 'refused'; readonly code: string; readonly message: string };

/** The approval API answered with an error, or could not be reached. */
export class ApprovalApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number | undefined,
  ) {
    super(message);
    this.name = 'ApprovalApiError';
  }
}

/** The three calls the gateway makes against the approval API (its HTTP contract). */
export class ApprovalApiClient {
  constructor(
    private readonly baseUrl: string,
    private readonly key: string,
  ) {}

  async create(idempotencyKey: string, body: ApprovalRequestBody): Promise<Approval> {
    const { status, json } = await this.send('POST', '/v1/approvals', body, {
      'Idempotency-Key': idempotencyKey,
    });
    if (status === 200 || status === 202) return json as Approval;
    throw refusal(status, json);
  }

  async get(id: string, waitSeconds: number, signal?: AbortSignal): Promise<Approval> {
    // Whole seconds, at least one: a zero wait would turn the hold into a busy poll.
    const wait = Math.max(1, Math.min(60, Math.ceil(waitSeconds)));
    const { status, json } = await this.send(
      'GET',
      `/v1/approvals/${encodeURIComponent(id)}?wait=${wait}`,
      undefined,
      {},
      signal,
    );
    if (status === 200) return json as Approval;
    throw refusal(status, json);
  }

  async redeem(id: string, argumentsHash: string): Promise<RedeemOutcome> {
    const { status, json } = await this.send(
      'POST',
      `/v1/approvals/${encodeURIComponent(id)}/redeem`,
      { argumentsHash },
    );
    if (status === 200) return { kind: 'redeemed', approval: json as Approval };
    if (status === 409 || status === 422) {
      const error = json as { error?: string; message?: string };
      return { kind: 'refused', code: error.error ?? 'conflict', message: error.message ?? '' };
    }
    throw refusal(status, json);
  }

  private async send(
    method: string,
    path: string,
    body: unknown,
    headers: Record<string, string> = {},
    signal?: AbortSignal,
  ): Promise<{ status: number; json: unknown }> {
    let response: Response;
    try {
      response = await fetch(new URL(path, this.baseUrl), {
        method,
        headers: {
          authorization: `Bearer ${this.key}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new ApprovalApiError(
        'unreachable',
        `the approval API cannot be reached (${causeOf(error)})`,
        undefined,
      );
    }
    const text = await response.text();
    let json: unknown;
    try {
      json = text === '' ? null : JSON.parse(text);
    } catch {
      throw new ApprovalApiError(
        'bad_response',
        `the approval API answered ${response.status} with a body that is not JSON`,
        response.status,
      );
    }
    return { status: response.status, json };
  }
}

function refusal(status: number, json: unknown): ApprovalApiError {
  const error = (json ?? {}) as { error?: string; message?: string };
  return new ApprovalApiError(
    error.error ?? 'http_error',
    `the approval API refused: ${status} ${error.error ?? ''} ${error.message ?? ''}`.trim(),
    status,
  );
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}
