import { createParamDecorator, type ExecutionContext, type PipeTransform } from '@nestjs/common';
import type { Request } from 'express';
import { ApiError, notFound } from '../http/api-error';

const APPROVAL_ID = /^apr_[0-9a-z]{26}$/;
const MAX_WAIT_S = 60;
const ARGUMENTS_HASH = /^sha256:[0-9a-f]{64}$/;
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u007f]/;

/**
 * The approval API's route parameters, read at the boundary (docs/protocol.md §8, HTTP API):
 * each pipe answers its refusal in the API's error shape with the code the contract names,
 * so a controller hands its use case only values of the right form.
 */

/** `:id` — not an approval id is no one's approval: `404 not_found`, as for another client's. */
export class ApprovalIdPipe implements PipeTransform<string, string> {
  transform(id: string): string {
    if (!APPROVAL_ID.test(id)) throw notFound();
    return id;
  }
}

/** `?wait=` in seconds, at most 60 (more is held for 60); absent or 0 answers at once. */
export class WaitSecondsPipe implements PipeTransform<unknown, number> {
  transform(raw: unknown): number {
    if (raw === undefined) return 0;
    if (typeof raw !== 'string' || !/^\d{1,6}(\.\d{1,3})?$/.test(raw))
      throw new ApiError(400, 'invalid_wait', 'wait must be a number of seconds, at most 60');
    return Math.min(Number(raw), MAX_WAIT_S);
  }
}

/** The redeem body `{"argumentsHash": "sha256:<64 hex>"}`, as the hash. */
export class ArgumentsHashPipe implements PipeTransform<unknown, string> {
  transform(body: unknown): string {
    const hash =
      typeof body === 'object' && body !== null && !Array.isArray(body)
        ? (body as { argumentsHash?: unknown }).argumentsHash
        : undefined;
    if (typeof hash !== 'string' || !ARGUMENTS_HASH.test(hash)) {
      throw new ApiError(
        400,
        'invalid_arguments_hash',
        'the body must be {"argumentsHash": "sha256:<64 hex>"}',
      );
    }
    return hash;
  }
}

/** The `Idempotency-Key` header: 1 to 200 printable characters. */
export class IdempotencyKeyPipe implements PipeTransform<unknown, string> {
  transform(key: unknown): string {
    if (typeof key !== 'string' || key.length < 1 || key.length > 200 || UNPRINTABLE.test(key)) {
      throw new ApiError(
        400,
        'idempotency_key_required',
        'an Idempotency-Key header of 1 to 200 printable characters is required',
      );
    }
    return key;
  }
}

/** The raw `Idempotency-Key` header, for a pipe to read (Nest's `@Headers` takes no pipes). */
export const IdempotencyKeyHeader = createParamDecorator(
  (_data: unknown, context: ExecutionContext): unknown =>
    context.switchToHttp().getRequest<Request>().headers['idempotency-key'],
);
