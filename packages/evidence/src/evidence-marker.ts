import { EvidenceError } from './evidence-error.js';
import { isValidId } from './ids.js';

/**
 * A pointer to one worker's evidence, as written in a compact spawn result:
 * `[EVIDENCE:run_id=48,job_id=123,worker_id=abc-123]`.
 *
 * @example
 * ```ts
 * const marker: EvidenceMarker = { runId: '48', jobId: '123', workerId: 'abc-123' };
 * ```
 */
export interface EvidenceMarker {
  runId: string;
  jobId: string;
  workerId: string;
}

/**
 * A marker found in text, with where it sits.
 *
 * @example
 * ```ts
 * const [first]: FoundEvidenceMarker[] = parseEvidenceMarkers(text).markers;
 * const before = text.slice(0, first?.start);
 * ```
 */
export interface FoundEvidenceMarker extends EvidenceMarker {
  /** The marker exactly as written. */
  raw: string;
  /** Offset of `[` and one past `]` in the searched string (UTF-16 units). */
  start: number;
  end: number;
}

/**
 * Something that looked like a marker but could not be read; it is never expanded.
 *
 * @example
 * ```ts
 * for (const bad of parseEvidenceMarkers(text).malformed) console.warn(bad.raw, bad.reason);
 * ```
 */
export interface MalformedEvidenceMarker {
  raw: string;
  start: number;
  reason: string;
}

/**
 * Result of {@link parseEvidenceMarkers}.
 *
 * @example
 * ```ts
 * const { markers, malformed }: ParsedEvidenceMarkers = parseEvidenceMarkers(text);
 * ```
 */
export interface ParsedEvidenceMarkers {
  markers: FoundEvidenceMarker[];
  malformed: MalformedEvidenceMarker[];
}

const OPENING = /\[\s*EVIDENCE\s*:/gi;
/** Every `[` that could open a marker, colon or not (broader than {@link OPENING}). */
const UNTRUSTED_OPENING = /\[(?=\s*EVIDENCE)/gi;
const MAX_MARKER_LENGTH = 512;
const FIELDS = { run_id: 'runId', job_id: 'jobId', worker_id: 'workerId' } as const;

/**
 * Writes the marker for a worker's evidence; throws `INVALID_ID` for an id that could not
 * be read back.
 *
 * @example
 * ```ts
 * formatEvidenceMarker({ runId: '48', jobId: '123', workerId: 'abc-123' });
 * // '[EVIDENCE:run_id=48,job_id=123,worker_id=abc-123]'
 * ```
 */
export function formatEvidenceMarker(marker: EvidenceMarker): string {
  for (const [key, field] of Object.entries(FIELDS)) {
    const value = marker[field];
    if (typeof value !== 'string' || !isValidId(value)) {
      throw new EvidenceError(
        'INVALID_ID',
        `${key} of an evidence marker is not a valid id: ${JSON.stringify(value)}`,
      );
    }
  }
  return `[EVIDENCE:run_id=${marker.runId},job_id=${marker.jobId},worker_id=${marker.workerId}]`;
}

function readFields(body: string): EvidenceMarker | string {
  const values: Partial<Record<keyof typeof FIELDS, string>> = {};
  for (const part of body.split(',')) {
    if (part.trim() === '') continue;
    const equals = part.indexOf('=');
    if (equals < 0) return `"${part.trim()}" is not key=value`;
    const key = part.slice(0, equals).trim().toLowerCase();
    const value = part.slice(equals + 1).trim();
    if (!(key in FIELDS)) continue;
    const known = key as keyof typeof FIELDS;
    if (values[known] !== undefined) return `${key} appears twice`;
    if (!isValidId(value)) return `${key} "${value}" is not a valid id`;
    values[known] = value;
  }
  const missing = Object.keys(FIELDS).filter((key) => values[key as keyof typeof FIELDS] === undefined);
  if (missing.length > 0) return `missing ${missing.join(', ')}`;
  return { runId: values.run_id ?? '', jobId: values.job_id ?? '', workerId: values.worker_id ?? '' };
}

/**
 * Finds every evidence marker in `text`, tolerating surrounding prose, whitespace around
 * keys and values, key order, case of the `EVIDENCE` tag and unknown extra keys. Anything
 * that opens like a marker but cannot be read is reported in `malformed` with a reason.
 *
 * @example
 * ```ts
 * const { markers, malformed } = parseEvidenceMarkers(toolMessageText);
 * for (const marker of markers) console.log(marker.jobId);
 * ```
 */
export function parseEvidenceMarkers(text: string): ParsedEvidenceMarkers {
  const markers: FoundEvidenceMarker[] = [];
  const malformed: MalformedEvidenceMarker[] = [];
  OPENING.lastIndex = 0;
  for (let match = OPENING.exec(text); match !== null; match = OPENING.exec(text)) {
    const start = match.index;
    const bodyStart = start + match[0].length;
    const window = text.slice(bodyStart, bodyStart + MAX_MARKER_LENGTH);
    const close = window.indexOf(']');
    const reopen = window.indexOf('[');
    if (close < 0 || (reopen >= 0 && reopen < close)) {
      const cut = reopen >= 0 && (close < 0 || reopen < close) ? reopen : Math.min(window.length, 80);
      malformed.push({
        raw: text.slice(start, bodyStart + cut),
        start,
        reason: 'marker is not closed with "]"',
      });
      continue;
    }
    const end = bodyStart + close + 1;
    const raw = text.slice(start, end);
    const fields = readFields(window.slice(0, close));
    if (typeof fields === 'string') malformed.push({ raw, start, reason: fields });
    else markers.push({ ...fields, raw, start, end });
    OPENING.lastIndex = end;
  }
  return { markers, malformed };
}

/**
 * Defuses every evidence marker in untrusted text (raw tool output, tool names, a worker's
 * own summary) so that mounting never expands it: each `[` that opens `[EVIDENCE` (any
 * case, whitespace allowed) becomes `(`. A reader still sees what was written
 * (`(EVIDENCE:run_id=48,…]`), and the text keeps its exact length in bytes, so byte
 * offsets and budgets computed on the original stay right.
 *
 * @example
 * ```ts
 * neutralizeEvidenceMarkers('see [EVIDENCE:run_id=48,job_id=2,worker_id=w2]');
 * // 'see (EVIDENCE:run_id=48,job_id=2,worker_id=w2]'
 * ```
 */
export function neutralizeEvidenceMarkers(text: string): string {
  return text.includes('[') ? text.replace(UNTRUSTED_OPENING, '(') : text;
}
