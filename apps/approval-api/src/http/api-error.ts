import { HttpException } from '@nestjs/common';

/** The approval API's error answer (docs/protocol.md): `{"error": <code>, "message": <text>}`. */
export class ApiError extends HttpException {
  constructor(
    status: number,
    readonly code: string,
    message: string,
  ) {
    super({ error: code, message }, status);
  }
}

export const unauthorized = () =>
  new ApiError(401, 'unauthorized', 'a valid Authorization: Bearer <key> is required');
export const notFound = () => new ApiError(404, 'not_found', 'no such approval');
