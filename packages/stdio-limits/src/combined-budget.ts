/** Input of {@link allocateCombined}. */
export interface CombinedBudgetInput {
  /** Per-stream caps. */
  stdoutCap: number;
  stderrCap: number;
  /** Bytes each stream produced. */
  stdoutBytes: number;
  stderrBytes: number;
  /** Limit on both streams together, applied after the per-stream caps. */
  combined: number;
}

/**
 * Splits the combined limit between stdout and stderr after the per-stream caps: each stream
 * gets a share proportional to its cap, and what one stream leaves unused goes to the other.
 *
 * @example
 * ```ts
 * allocateCombined({ stdoutCap: 100, stderrCap: 100, stdoutBytes: 500, stderrBytes: 10, combined: 100 });
 * // { stdout: 90, stderr: 10 }
 * ```
 */
export function allocateCombined(input: CombinedBudgetInput): { stdout: number; stderr: number } {
  const wantOut = Math.min(input.stdoutBytes, input.stdoutCap);
  const wantErr = Math.min(input.stderrBytes, input.stderrCap);
  if (wantOut + wantErr <= input.combined) return { stdout: input.stdoutCap, stderr: input.stderrCap };
  const caps = input.stdoutCap + input.stderrCap;
  const shareOut = caps === 0 ? 0 : Math.floor((input.combined * input.stdoutCap) / caps);
  const shareErr = input.combined - shareOut;
  if (wantOut < shareOut)
    return { stdout: wantOut, stderr: Math.min(input.stderrCap, input.combined - wantOut) };
  if (wantErr < shareErr)
    return { stdout: Math.min(input.stdoutCap, input.combined - wantErr), stderr: wantErr };
  return { stdout: shareOut, stderr: shareErr };
}
