import { APICallError, RetryError } from 'ai';
import { describe, expect, it } from 'vitest';
import {
  MAX_RETRY_AFTER_MS,
  modelCallFailure,
  modelCallFailureTypes,
  retryAfterMs,
} from './model-call-failure.js';

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

describe('retryAfterMs', () => {
  const now = () => Date.parse('2025-01-01T00:00:00Z');
  it('reads milliseconds, seconds and HTTP dates, any header case', () => {
    expect(retryAfterMs({ 'retry-after-ms': '1500' })).toBe(1500);
    expect(retryAfterMs({ 'Retry-After': '2' })).toBe(2000);
    expect(retryAfterMs({ 'retry-after': 'Wed, 01 Jan 2025 00:00:30 GMT' }, now)).toBe(30_000);
  });
  it('ignores what is missing, negative, unreadable or longer than the cap', () => {
    expect(retryAfterMs(undefined)).toBeUndefined();
    expect(retryAfterMs({ 'retry-after': 'soon' })).toBeUndefined();
    expect(retryAfterMs({ 'retry-after': '-1' })).toBeUndefined();
    expect(retryAfterMs({ 'retry-after': String(MAX_RETRY_AFTER_MS / 1000 + 1) })).toBeUndefined();
  });
});
