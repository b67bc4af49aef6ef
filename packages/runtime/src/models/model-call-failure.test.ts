import { MAX_RETRY_AFTER_MS } from '@wharf/common';
import { APICallError, RetryError } from 'ai';
import { describe, expect, it } from 'vitest';
import { modelCallFailure, modelCallFailureTypes } from './model-call-failure.js';

const apiError = (statusCode: number | undefined, headers?: Record<string, string>) =>
  new APICallError({
    message: `status ${statusCode}`,
    url: 'http://provider/v1/responses',
    requestBodyValues: {},
    ...(statusCode === undefined ? { isRetryable: true } : { statusCode }),
    ...(headers === undefined ? {} : { responseHeaders: headers }),
  });

describe('modelCallFailure', () => {
  it('fails a refused request without retry', () => {
    for (const status of [400, 401, 403, 404]) {
      const failure = modelCallFailure(apiError(status));
      expect(failure?.nonRetryable).toBe(true);
      expect(failure?.type).toBe(modelCallFailureTypes.rejected);
    }
  });

  it('retries overload, rate limits, server errors and dropped connections, after Retry-After when given', () => {
    for (const status of [408, 409, 429, 500, 503, undefined]) {
      const failure = modelCallFailure(apiError(status));
      expect(failure?.nonRetryable).toBe(false);
      expect(failure?.type).toBe(modelCallFailureTypes.unavailable);
      expect(failure?.nextRetryDelay).toBeUndefined();
    }
    const limited = modelCallFailure(apiError(429, { 'retry-after': '7' }));
    expect(limited?.nextRetryDelay).toBe(7_000);
    expect(limited?.message).toContain('the provider asked to retry after 7000 ms');
    expect(modelCallFailure(apiError(429, { 'retry-after-ms': '1500' }))?.nextRetryDelay).toBe(1500);
    const dated = apiError(503, { 'Retry-After': 'Wed, 01 Jan 2025 00:00:30 GMT' });
    expect(modelCallFailure(dated, () => Date.parse('2025-01-01T00:00:00Z'))?.nextRetryDelay).toBe(30_000);
    const tooLong = apiError(429, { 'retry-after': String(MAX_RETRY_AFTER_MS / 1000 + 1) });
    expect(modelCallFailure(tooLong)?.nextRetryDelay).toBeUndefined();
  });

  it('reads the last error of the AI SDK retry wrapper, and leaves other errors alone', () => {
    const wrapped = new RetryError({
      message: 'failed',
      reason: 'maxRetriesExceeded',
      errors: [apiError(500), apiError(401)],
    });
    expect(modelCallFailure(wrapped)?.nonRetryable).toBe(true);
    expect(modelCallFailure(new Error('disk full'))).toBeUndefined();
  });
});
