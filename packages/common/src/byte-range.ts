/**
 * A byte range of a body or an artifact: `start` inclusive, `end` exclusive; both optional.
 * One shape for every Wharf package that reads part of something stored (`@wharf/output-store`
 * bodies, `@wharf/evidence` tool outputs); each decides how a range that does not fit is
 * treated (refused, or clamped to the size).
 *
 * @example
 * ```ts
 * const firstKiB: ByteRange = { start: 0, end: 1024 };
 * ```
 */
export interface ByteRange {
  readonly start?: number;
  readonly end?: number;
}
