/**
 * How {@link OutputClient.emit} retries an EMIT the intake answered 503 (busy) or 429 (too many
 * requests). Safe because every EMIT carries an idempotency key: a retry that reaches a store
 * which did take the first attempt gets the same ref, never a second output.
 *
 * @example
 * ```ts
 * const retry: EmitRetryOptions = { maxAttempts: 3, maxElapsedMs: 10_000 };
 * ```
 */
export interface EmitRetryOptions {
  /** Attempts in all, the first included; default 6. `1` turns retrying off. */
  readonly maxAttempts?: number;
  /** No attempt starts later than this after the first one; default 30 000 ms. */
  readonly maxElapsedMs?: number;
  /**
   * Backoff when the answer asks no wait (`Retry-After` or `retry-after-ms`, as `@wharf/common`'s
   * `retryAfterMs` reads them; a wait past its 10-minute cap is not honoured): full jitter up to
   * `baseDelayMs·2^(n−1)`; default 200 ms.
   */
  readonly baseDelayMs?: number;
  /** Longest backoff without `Retry-After`; default 5 000 ms. */
  readonly maxDelayMs?: number;
  /**
   * A streamed body is kept in memory up to this many bytes so a retry can send it again;
   * default 4 MiB. A stream that outgrew it before the busy answer is not retried.
   */
  readonly maxReplayBytes?: number;
}

/** {@link EmitRetryOptions} with every default filled in. */
export type EmitRetryPolicy = Required<EmitRetryOptions>;

const defaults: EmitRetryPolicy = {
  maxAttempts: 6,
  maxElapsedMs: 30_000,
  baseDelayMs: 200,
  maxDelayMs: 5_000,
  maxReplayBytes: 4 * 1024 * 1024,
};

/**
 * The retry policy with defaults filled in.
 *
 * @example
 * ```ts
 * emitRetryPolicy({ maxAttempts: 1 }).maxElapsedMs; // 30000
 * ```
 */
export function emitRetryPolicy(options: EmitRetryOptions = {}): EmitRetryPolicy {
  const policy = { ...defaults, ...options };
  for (const [name, value] of Object.entries(policy)) {
    if (!Number.isSafeInteger(value) || value < 0 || (name === 'maxAttempts' && value < 1))
      throw new RangeError(`retry.${name} must be a whole number${name === 'maxAttempts' ? ' ≥ 1' : ' ≥ 0'}`);
  }
  return policy;
}

/**
 * Statuses an EMIT is retried on: 503 (the intake is at its concurrency cap) and 429.
 *
 * @example
 * ```ts
 * isRetryableStatus(503); // true
 * ```
 */
export function isRetryableStatus(status: number): boolean {
  return status === 503 || status === 429;
}

/**
 * Wait before attempt `attempt + 1` after attempt `attempt` was answered busy: what
 * `Retry-After` asked plus up to 20 % jitter (so a crowd of clients told "1 s" does not come
 * back at once), else full-jitter exponential backoff.
 *
 * @example
 * ```ts
 * retryDelayMs({ attempt: 1, retryAfterMs: 1000, policy, random: Math.random }); // 1000–1200
 * ```
 */
export function retryDelayMs(input: {
  attempt: number;
  retryAfterMs: number | undefined;
  policy: EmitRetryPolicy;
  random: () => number;
}): number {
  const { attempt, policy, random } = input;
  if (input.retryAfterMs !== undefined) return Math.round(input.retryAfterMs * (1 + 0.2 * random()));
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling * random());
}
