import { ApplicationFailure } from '@temporalio/common';
import { MAX_RETRY_AFTER_MS, retryAfterMs } from '@wharf/common';
import { APICallError, RetryError } from 'ai';

/** `ApplicationFailure` types of a failed model call. */
export const modelCallFailureTypes = Object.freeze({
  /** The provider refused the request (bad key, bad request, unknown model): a retry cannot help. */
  rejected: 'WharfModelRejected',
  /** The provider was overloaded, rate limited, failed or unreachable: Temporal retries. */
  unavailable: 'WharfModelUnavailable',
} as const);

/**
 * The Temporal failure for a provider's HTTP failure (an AI SDK `APICallError`, or the last
 * error of a `RetryError`), else `undefined`. A failure the provider marks retryable (429, 408,
 * 409, 5xx, a dropped connection) is retryable, and when the provider said when to come back
 * (`retry-after-ms` or `Retry-After`, seconds or an HTTP date, read by `@wharf/common`'s
 * `retryAfterMs`; at most {@link MAX_RETRY_AFTER_MS}) the next attempt waits that long (`nextRetryDelay`) instead of the policy's backoff. Any other
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
  const delay = retryAfterMs(call.responseHeaders, { now: now() });
  return ApplicationFailure.create({
    message:
      delay === undefined ? call.message : `${call.message} (the provider asked to retry after ${delay} ms)`,
    type: modelCallFailureTypes.unavailable,
    nonRetryable: false,
    details: [{ statusCode: call.statusCode ?? null, url: call.url }],
    ...(delay === undefined ? {} : { nextRetryDelay: delay }),
  });
}
