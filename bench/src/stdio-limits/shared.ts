import { createHash } from 'node:crypto';

/** One line of the synthetic report the benchmark processes print. */
export const REPORT_LINE = 'wharf report line: the quick brown fox jumps over the lazy dog 0123456789';

/** A shell command printing exactly `bytes` bytes of report lines (as `yes | head -c`). */
export function reportCommand(bytes: number): string[] {
  return ['-c', `yes '${REPORT_LINE}' | head -c ${bytes}`];
}

/** The sha256 of what {@link reportCommand} prints, computed in process without holding it all. */
export function reportSha256(bytes: number): string {
  const hash = createHash('sha256');
  const block = Buffer.from(`${REPORT_LINE}\n`.repeat(8192));
  let left = bytes;
  while (left > 0) {
    const take = Math.min(left, block.length);
    hash.update(block.subarray(0, take));
    left -= take;
  }
  return hash.digest('hex');
}

/** Samples the resident set size until stopped; returns the peak. */
export function sampleRss(intervalMs = 10): { stop(): number } {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage.rss());
    },
  };
}

export const MiB = 1024 * 1024;
