import { describe, expect, it } from 'vitest';
import {
  IntakeBusyError,
  InvalidOutputEventError,
  OutputNotFoundError,
  OutputTooLargeError,
  StorageFailureError,
} from '../errors.js';
import { toHttpError } from './http-error.js';

describe('toHttpError', () => {
  it('maps store errors to statuses with actionable details', () => {
    expect(toHttpError(new OutputTooLargeError(1024))).toEqual({
      status: 413,
      body: {
        error: {
          code: 'TOO_LARGE',
          message: 'output body exceeds the limit of 1024 bytes',
          limitBytes: 1024,
        },
      },
    });
    expect(toHttpError(new InvalidOutputEventError('name', 'is bad')).body.error.field).toBe('name');
    expect(toHttpError(new OutputNotFoundError('out_x', 'expired'))).toMatchObject({
      status: 404,
      body: { error: { reason: 'expired' } },
    });
  });

  it('maps a busy intake to 503 with its code', () => {
    expect(toHttpError(new IntakeBusyError(32, 1))).toMatchObject({
      status: 503,
      body: { error: { code: 'UNAVAILABLE', message: expect.stringMatching(/limit of 32 concurrent/) } },
    });
  });

  it('hides internals of storage failures and foreign errors', () => {
    expect(toHttpError(new StorageFailureError('disk /var/secret failed')).body.error.message).toBe(
      'storage failure',
    );
    expect(toHttpError(new Error('boom'))).toEqual({
      status: 500,
      body: { error: { code: 'INTERNAL', message: 'internal error' } },
    });
  });
});
