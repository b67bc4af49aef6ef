export { parseBearerToken } from './bearer-token.js';
export type { ByteRange } from './byte-range.js';
export { formatBytes } from './format-bytes.js';
export type { JsonObject, JsonValue } from './json-value.js';
export { type OwnerAndMode, othersControl } from './others-control.js';
export { RecentMap } from './recent-map.js';
export {
  MAX_RETRY_AFTER_MS,
  type RetryAfterOptions,
  type RetryHeaders,
  retryAfterMs,
} from './retry-after.js';
export {
  clampUtf8,
  completePrefixLength,
  decodeUtf8,
  encodeUtf8,
  utf8CutAfter,
  utf8CutBefore,
  utf8Length,
} from './utf8.js';
export { codeGuard, type ErrorGuard, errorGuard, WharfError, type WharfErrorOptions } from './wharf-error.js';
