/**
 * Environment variables a spawn receives from `inputInjectLayer` and the client reads:
 * `IN_REFS` (comma-separated output ids), the intake URL and the spawn's token.
 *
 * @example
 * ```ts
 * const refs = (process.env[spawnEnv.inRefs] ?? '').split(',').filter(Boolean);
 * ```
 */
export const spawnEnv = {
  inRefs: 'IN_REFS',
  outputUrl: 'WHARF_OUTPUT_URL',
  outputToken: 'WHARF_OUTPUT_TOKEN',
} as const;
