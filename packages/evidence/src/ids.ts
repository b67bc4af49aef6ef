import { EvidenceError } from './evidence-error.js';

const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
const ARTIFACT_ID_PATTERN =
  /^([A-Za-z0-9][A-Za-z0-9._:-]{0,127})\/tool_calls\/(\d{3,})_([A-Za-z0-9._-]+)\.txt$/;

/**
 * Checks an owner, run, job or worker id: 1–128 characters of letters, digits and `._:-`,
 * starting with a letter or digit (so it is safe in paths, keys and evidence markers).
 *
 * @example
 * ```ts
 * assertId('workerId', 'abc-123'); // ok
 * assertId('workerId', '../etc'); // throws EvidenceError INVALID_ID
 * ```
 */
export function assertId(field: string, value: unknown): asserts value is string {
  if (typeof value !== 'string' || !ID_PATTERN.test(value)) {
    throw new EvidenceError(
      'INVALID_ID',
      `${field} must be 1-128 characters of letters, digits and "._:-" starting with a letter or digit; got ${JSON.stringify(value)}`,
    );
  }
}

/** True when `value` is a valid id (see {@link assertId}).
 *
 * @example
 * ```ts
 * isValidId('job-7'); // true
 * ```
 */
export function isValidId(value: string): boolean {
  return ID_PATTERN.test(value);
}

/**
 * File-name-safe form of a tool name: anything outside `A-Za-z0-9._-` becomes `_`.
 *
 * @example
 * ```ts
 * toolFileStem('mcp/github search'); // 'mcp_github_search'
 * ```
 */
export function toolFileStem(toolName: string): string {
  const stem = toolName.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80);
  return stem.length === 0 || /^\.+$/.test(stem) ? 'tool' : stem;
}

/**
 * The output file name of a tool call, `NNN_<tool>.txt` (at least three digits).
 *
 * @example
 * ```ts
 * toolOutputFileName(2, 'ssh_exec'); // '002_ssh_exec.txt'
 * ```
 */
export function toolOutputFileName(seq: number, toolName: string): string {
  return `${String(seq).padStart(3, '0')}_${toolFileStem(toolName)}.txt`;
}

/**
 * The stable id of a tool call's output: `<workerId>/tool_calls/NNN_<tool>.txt`.
 *
 * @example
 * ```ts
 * formatArtifactId('abc-123', 2, 'ssh_exec'); // 'abc-123/tool_calls/002_ssh_exec.txt'
 * ```
 */
export function formatArtifactId(workerId: string, seq: number, toolName: string): string {
  return `${workerId}/tool_calls/${toolOutputFileName(seq, toolName)}`;
}

/**
 * Splits an artifact id into worker id and sequence number; `undefined` when malformed.
 *
 * @example
 * ```ts
 * parseArtifactId('abc-123/tool_calls/002_ssh_exec.txt'); // { workerId: 'abc-123', seq: 2 }
 * ```
 */
export function parseArtifactId(artifactId: string): { workerId: string; seq: number } | undefined {
  const match = ARTIFACT_ID_PATTERN.exec(artifactId.trim());
  if (!match?.[1] || !match[2]) return undefined;
  const seq = Number(match[2]);
  return Number.isSafeInteger(seq) && seq >= 1 ? { workerId: match[1], seq } : undefined;
}

/**
 * Orders ids naturally: all-digit ids by numeric value, others by code units, digits first.
 *
 * @example
 * ```ts
 * ['10', '9', 'b', 'a'].sort(compareIds); // ['9', '10', 'a', 'b']
 * ```
 */
export function compareIds(left: string, right: string): number {
  const leftNumeric = /^\d+$/.test(left);
  const rightNumeric = /^\d+$/.test(right);
  if (leftNumeric && rightNumeric) {
    const a = left.replace(/^0+(?=\d)/, '');
    const b = right.replace(/^0+(?=\d)/, '');
    if (a.length !== b.length) return a.length - b.length;
  } else if (leftNumeric !== rightNumeric) {
    return leftNumeric ? -1 : 1;
  }
  return left < right ? -1 : left > right ? 1 : 0;
}
