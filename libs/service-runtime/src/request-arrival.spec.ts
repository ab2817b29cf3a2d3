import type { NextFunction, Request, Response } from 'express';
import { arrivalOf, stampArrival } from './request-arrival';

describe('stampArrival', () => {
  afterEach(() => jest.useRealTimers());

  it('notes when a request arrived, before the handlers after it run', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const req = {} as Request;
    const next = jest.fn<void, []>(() => jest.setSystemTime(1_000_700));

    stampArrival(req, {} as Response, next as NextFunction);

    expect(next).toHaveBeenCalledTimes(1);
    expect(arrivalOf(req)).toBe(1_000_000);
  });

  it('knows no arrival of a request it did not see', () => {
    expect(arrivalOf({})).toBeUndefined();
  });
});
