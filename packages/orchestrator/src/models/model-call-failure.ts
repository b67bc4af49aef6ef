import { ApplicationFailure } from '@temporalio/common';
import { APICallError, RetryError } from 'ai';

/** `ApplicationFailure` types of a failed model call. */
export const modelCallFailureTypes = Object.freeze({
  /** The provider refused the request (bad key, bad request, unknown model): a retry cannot help. */
  rejected: 'WharfModelRejected',
  /** The provider was overloaded, rate limited, failed or unreachable: Temporal retries. */
  unavailable: 'WharfModelUnavailable',
} as const);

/** The longest `Retry-After` honoured; longer waits use the retry policy's backoff instead. */
export const MAX_RETRY_AFTER_MS = 10 * 60_000;

/**
 * The Temporal failure for a provider's HTTP failure (an AI SDK `APICallError`, or the last
 * error of a `RetryError`), else `undefined`. A failure the provider marks retryable (429, 408,
 * 409, 5xx, a dropped connection) is retryable, and when the provider said when to come back
 * (`retry-after-ms` or `Retry-After`, seconds or an HTTP date; at most {@link MAX_RETRY_AFTER_MS})
 * the next attempt waits that long (`nextRetryDelay`) instead of the policy's backoff. Any other
 * status (401 bad key, 400, 404) fails without retry. Wharf calls models with the AI SDK's own
 * retries off (`maxRetries: 0`), so the activity's retry policy is the only one.
 *
 * @example
 * ```ts
 * try { await generateText({ model, prompt, maxRetries: 0 }); }
 * catch (error) { throw modelCallFailure(error) ?? error; }
 * ```
 */
export function modelCallFailure(
  error: unknown,
  now: () => number = Date.now,
): ApplicationFailure | undefined {
  const call = RetryError.isInstance(error) ? error.lastError : error;
  if (!APICallError.isInstance(call)) return undefined;
  if (!call.isRetryable) {
    return ApplicationFailure.create({
      message: call.message,
      type: modelCallFailureTypes.rejected,
      nonRetryable: true,
      details: [{ statusCode: call.statusCode ?? null, url: call.url }],
    });
  }
  const delay = retryAfterMs(call.responseHeaders, now);
  return ApplicationFailure.create({
    message:
      delay === undefined ? call.message : `${call.message} (the provider asked to retry after ${delay} ms)`,
    type: modelCallFailureTypes.unavailable,
    nonRetryable: false,
    details: [{ statusCode: call.statusCode ?? null, url: call.url }],
    ...(delay === undefined ? {} : { nextRetryDelay: delay }),
  });
}

/**
 * How long a provider asked to wait, from `retry-after-ms` or `Retry-After` (seconds or an
 * HTTP date), when it is between 0 and {@link MAX_RETRY_AFTER_MS}.
 *
 * @example
 * ```ts
 * retryAfterMs({ 'retry-after': '3' }); // 3000
 * ```
 */
export function retryAfterMs(
  headers: Record<string, string> | undefined,
  now: () => number = Date.now,
): number | undefined {
  if (headers === undefined) return undefined;
  const lower = Object.fromEntries(Object.entries(headers).map(([key, value]) => [key.toLowerCase(), value]));
  let ms: number | undefined;
  const millis = lower['retry-after-ms'];
  if (millis !== undefined && Number.isFinite(Number.parseFloat(millis))) ms = Number.parseFloat(millis);
  const after = lower['retry-after'];
  if (ms === undefined && after !== undefined) {
    const seconds = Number(after.trim());
    ms = Number.isFinite(seconds) ? seconds * 1_000 : Date.parse(after) - now();
  }
  if (ms === undefined || !Number.isFinite(ms) || ms < 0 || ms > MAX_RETRY_AFTER_MS) return undefined;
  return Math.ceil(ms);
}
