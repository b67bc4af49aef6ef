import { WharfOrchestratorError } from '../orchestrator-error.js';

/**
 * What `wharf gc` and the worker's scheduled gc remove. Outputs past their own `expiresAt` are
 * always removed; with no other field nothing else is.
 */
export interface GcPolicy {
  /** Remove outputs stored more than this many milliseconds ago. */
  olderThanMs?: number;
  /** Then remove the oldest outputs until the store holds at most this many body bytes. */
  maxTotalBytes?: number;
  /** Remove every output of this run (its workflow id). */
  runId?: string;
  /**
   * Bodies the store's blob store holds with no output referencing them (an EMIT killed
   * between its upload and its commit) go once last written longer ago than this; default one
   * hour, so an EMIT on its way keeps its body.
   */
  orphanGraceMs?: number;
}

const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)$/;
const DURATION_MS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};
const SIZE = /^(\d+(?:\.\d+)?)\s*(B|KB|KiB|MB|MiB|GB|GiB|TB|TiB)?$/i;
const SIZE_BYTES: Record<string, number> = {
  b: 1,
  kb: 1e3,
  kib: 2 ** 10,
  mb: 1e6,
  mib: 2 ** 20,
  gb: 1e9,
  gib: 2 ** 30,
  tb: 1e12,
  tib: 2 ** 40,
};

/**
 * Parses an age such as `500ms`, `30s`, `15m`, `12h`, `7d` or `2w` to milliseconds; `what`
 * names the option in the error.
 *
 * @example
 * ```ts
 * parseAge('7d', '--older-than'); // 604800000
 * ```
 */
export function parseAge(text: string, what: string): number {
  const match = DURATION.exec(text.trim());
  const ms = match === null ? Number.NaN : Number(match[1]) * (DURATION_MS[match[2] as string] ?? Number.NaN);
  if (!Number.isFinite(ms) || ms <= 0)
    throw new WharfOrchestratorError(
      'INVALID_REQUEST',
      `${what} must be a duration such as 30s, 15m, 12h, 7d or 2w, got "${text}"`,
    );
  return Math.round(ms);
}

/**
 * Parses a size such as `512MiB`, `10GB` or `1048576` (bytes) to bytes; `what` names the
 * option in the error.
 *
 * @example
 * ```ts
 * parseSize('10GiB', '--max-bytes'); // 10737418240
 * ```
 */
export function parseSize(text: string, what: string): number {
  const match = SIZE.exec(text.trim());
  const bytes =
    match === null
      ? Number.NaN
      : Number(match[1]) * (SIZE_BYTES[(match[2] ?? 'b').toLowerCase()] ?? Number.NaN);
  if (!Number.isSafeInteger(Math.floor(bytes)) || bytes < 0)
    throw new WharfOrchestratorError(
      'INVALID_REQUEST',
      `${what} must be a size such as 1048576, 512MiB or 10GB, got "${text}"`,
    );
  return Math.floor(bytes);
}
