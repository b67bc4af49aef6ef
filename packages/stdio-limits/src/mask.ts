import type { TaskOutput } from './schemas.js';

/**
 * A short tombstone that stands in for an output: its size and where the full text is. Masking
 * older outputs keeps the context small without pretending they never existed.
 *
 * @example
 * ```ts
 * maskOutput(output); // '[output masked: 50000 bytes; full text at .outputs/build.log]'
 * ```
 */
export function maskOutput(output: TaskOutput): string {
  const where = output.filePath === undefined ? 'full text not stored' : `full text at ${output.filePath}`;
  return `[output masked: ${output.originalSize} bytes; ${where}]`;
}
