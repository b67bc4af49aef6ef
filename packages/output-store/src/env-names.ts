/**
 * Environment variables a spawn receives from whoever starts it and the client reads:
 * `IN_REFS` (comma-separated output ids), the intake URL, the spawn's token and the base of
 * its EMIT idempotency keys (stable across retries, so a retried spawn gets the same refs).
 *
 * @example
 * ```ts
 * const refs = (process.env[spawnEnv.inRefs] ?? '').split(',').filter(Boolean);
 * ```
 */
export const spawnEnv = {
  inRefs: 'IN_REFS',
  /** Set instead of `IN_REFS` when the refs are too many for a variable: a file holding a JSON array of output ids. */
  inRefsFile: 'WHARF_IN_REFS_FILE',
  outputUrl: 'WHARF_OUTPUT_URL',
  outputToken: 'WHARF_OUTPUT_TOKEN',
  /** Base of the spawn's EMIT idempotency keys, the same for every retry of the spawn. */
  emitKey: 'WHARF_EMIT_KEY',
} as const;
