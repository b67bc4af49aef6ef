/**
 * The longest wait a server's retry header is honoured for (10 minutes); a longer one is not
 * honoured, and the caller's own backoff applies instead.
 */
export const MAX_RETRY_AFTER_MS = 10 * 60_000;

/**
 * Response headers as the callers have them: a fetch `Headers` (anything with `get`), or a
 * plain record in any header case (the AI SDK's `responseHeaders`).
 */
export type RetryHeaders =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | undefined>>;

/** Options of {@link retryAfterMs}. */
export interface RetryAfterOptions {
  /** The current time in epoch milliseconds, against which an HTTP date is read. */
  readonly now: number;
  /** The longest wait honoured; default {@link MAX_RETRY_AFTER_MS}. */
  readonly maxMs?: number;
}

const decimal = /^\d+(\.\d+)?$/;
/** Every HTTP date form (IMF-fixdate, RFC 850, asctime) opens with the day's name. */
const httpDate = /^[A-Za-z]{3}/;

/**
 * How long a server asked to wait before the next attempt, in whole milliseconds: from
 * `retry-after-ms` (milliseconds, as OpenAI-style APIs send), else `Retry-After` (seconds, or an
 * HTTP date: one already past means now, 0). `undefined` when neither is there or readable, or
 * when the wait is longer than `maxMs` ({@link MAX_RETRY_AFTER_MS} unless given): the caller's
 * own backoff applies then. The one reading of these headers in Wharf: model calls and EMIT
 * retries both ask it.
 *
 * @example
 * ```ts
 * retryAfterMs({ 'Retry-After': '3' }, { now: Date.now() }); // 3000
 * retryAfterMs(response.headers, { now: Date.now(), maxMs: 30_000 }); // a fetch Response's
 * ```
 */
export function retryAfterMs(
  headers: RetryHeaders | undefined,
  options: RetryAfterOptions,
): number | undefined {
  if (headers === undefined) return undefined;
  const read = headerReader(headers);
  const millis = read('retry-after-ms')?.trim();
  let ms = millis !== undefined && decimal.test(millis) ? Number(millis) : undefined;
  const after = ms === undefined ? read('retry-after')?.trim() : undefined;
  if (after !== undefined && after !== '') {
    if (decimal.test(after)) ms = Number(after) * 1_000;
    else if (httpDate.test(after)) {
      const date = Date.parse(after);
      if (!Number.isNaN(date)) ms = Math.max(0, date - options.now);
    }
  }
  if (ms === undefined || !Number.isFinite(ms) || ms > (options.maxMs ?? MAX_RETRY_AFTER_MS))
    return undefined;
  return Math.ceil(ms);
}

/** A case-insensitive lookup of one header. */
function headerReader(headers: RetryHeaders): (name: string) => string | undefined {
  if (typeof headers.get === 'function') {
    const get = headers.get.bind(headers) as (name: string) => string | null;
    return (name) => get(name) ?? undefined;
  }
  const record = headers as Readonly<Record<string, string | undefined>>;
  return (name) => {
    for (const [key, value] of Object.entries(record)) if (key.toLowerCase() === name) return value;
    return undefined;
  };
}
