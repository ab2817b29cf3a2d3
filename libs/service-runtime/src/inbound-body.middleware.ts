import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import type { InboundRefusals } from './inbound-refusals.service';

/** Every inbound endpoint refuses bodies over 1 MiB with 413 (docs/protocol.md §5). */
export const INBOUND_BODY_LIMIT_BYTES = 1024 * 1024;

/** What the platforms POST: JSON (Slack events, Discord, Mattermost) or a form (the rest). */
const PARSED_MEDIA_TYPES = new Set(['application/json', 'application/x-www-form-urlencoded']);

/** The label a refusal on a path Tollgate does not serve is counted under. */
export const OTHER_ENDPOINT = 'other';

/** body-parser's error `type`s, as the reason codes a refused sender reads. */
const BODY_ERROR_REASONS = new Map([
  ['entity.too.large', 'body_too_large'],
  ['entity.parse.failed', 'invalid_json'],
  ['parameters.too.many', 'too_many_form_fields'],
  ['querystring.parse.rangeError', 'form_too_deep'],
  ['charset.unsupported', 'unsupported_charset'],
  ['encoding.unsupported', 'unsupported_encoding'],
  ['request.aborted', 'request_aborted'],
  ['request.size.invalid', 'body_size_mismatch'],
]);

export interface InboundBodyOptions {
  /** The POST routes this service serves, e.g. `/slack/events`; they name the refusals. */
  readonly endpoints: readonly string[];
  readonly refusals: InboundRefusals;
  /** A lower cap than 1 MiB for a service whose contract says so (the approval API: 256 KiB). */
  readonly limitBytes?: number;
  /** The body of a refusal, for a service whose errors have their own shape. */
  readonly refusalBody?: (reason: string) => object;
}

/**
 * Replaces Nest's default body parsers (100 kB, errors left to Express's final handler, which
 * prints a stack trace per refused request) with parsers that cap at 1 MiB and refuse
 * anything unreadable with a 4xx and a reason code, counted and logged at debug: none of this
 * is authenticated yet. A declared oversize or an unparsed content type is refused from the
 * headers alone; a chunked body is counted as it arrives and never buffered past the cap.
 * Bodies are not inflated: the platforms send none compressed, and the signature covers the
 * bytes as sent.
 */
export function installInboundBodyParsing(
  app: NestExpressApplication,
  options: InboundBodyOptions,
): void {
  const endpointOf = endpointLabeller(options.endpoints);
  const refuse = (req: Request, res: Response, status: number, reason: string): void => {
    options.refusals.unauthenticated(endpointOf(req.path), reason, { status });
    if (res.headersSent) return;
    res.status(status).json(options.refusalBody?.(reason) ?? { reason });
  };
  const limit = options.limitBytes ?? INBOUND_BODY_LIMIT_BYTES;

  app.use((req: Request, res: Response, next: NextFunction) => {
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > limit) {
      // Read off and dropped, so a keep-alive connection stays usable for the next request.
      req.resume();
      return refuse(req, res, 413, 'body_too_large');
    }
    const hasBody = req.headers['transfer-encoding'] !== undefined || Number(declared) > 0;
    if (hasBody && !PARSED_MEDIA_TYPES.has(mediaTypeOf(req.headers['content-type']))) {
      req.resume();
      return refuse(req, res, 415, 'unsupported_content_type');
    }
    next();
  });
  app.useBodyParser('json', { limit, inflate: false });
  app.useBodyParser('urlencoded', { limit, inflate: false, extended: true });
  app.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    const status = statusOf(error);
    if (status === undefined || status < 400 || status >= 500) return next(error);
    refuse(req, res, status, reasonOf(error));
  });
}

function endpointLabeller(endpoints: readonly string[]): (path: string) => string {
  const known = new Map(endpoints.map((endpoint) => [normalPath(endpoint), endpoint]));
  return (path) => known.get(normalPath(path)) ?? OTHER_ENDPOINT;
}

/** As Express routes: case-insensitive, a trailing slash allowed. */
function normalPath(path: string): string {
  return path.toLowerCase().replace(/\/+$/, '');
}

function mediaTypeOf(header: string | undefined): string {
  return (header ?? '').split(';')[0].trim().toLowerCase();
}

function statusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { status } = error as { status?: unknown };
  return typeof status === 'number' ? status : undefined;
}

function reasonOf(error: unknown): string {
  const { type } = error as { type?: unknown };
  return (typeof type === 'string' ? BODY_ERROR_REASONS.get(type) : undefined) ?? 'unreadable_body';
}
