import type { Payload } from '@temporalio/common';
import { decodeUtf8, utf8CutBefore } from '@wharf/common';
import { textBytes } from '../metadata.js';

/** Default display limit of a decoded payload's data: 256 KiB. */
export const defaultDisplayLimitBytes = 256 * 1024;

/**
 * A decoded payload whose data is over `limitBytes`, cut for display: a `json/plain` string of
 * its first bytes (at a UTF-8 boundary), then a line saying how many bytes remain and how to
 * read them whole (`wharf outputs show <outId>` when it came from the output store). A payload
 * within the limit is returned as it is. `cutBytes` is how many bytes were left out.
 *
 * @example
 * ```ts
 * const { payload, cutBytes } = cutForDisplay(decoded, { limitBytes: 256 * 1024, outId: 'out_x' });
 * ```
 */
export function cutForDisplay(
  payload: Payload,
  options: { limitBytes: number; outId?: string | undefined },
): { payload: Payload; cutBytes: number } {
  const data = payload.data ?? new Uint8Array();
  if (data.byteLength <= options.limitBytes) return { payload, cutBytes: 0 };
  const kept = utf8CutBefore(data, options.limitBytes);
  const cutBytes = data.byteLength - kept;
  const how =
    options.outId === undefined
      ? 'the payload is inline in the history'
      : `read it whole with: wharf outputs show ${options.outId}`;
  const text = `${decodeUtf8(data.subarray(0, kept))}\n… ${cutBytes} bytes more (cut for display; ${how})`;
  return {
    payload: {
      metadata: { encoding: textBytes('json/plain'), 'wharf-display-cut': textBytes(String(cutBytes)) },
      data: textBytes(JSON.stringify(text)),
    },
    cutBytes,
  };
}
