import { checkEvidenceAccess } from './evidence-access.js';
import type { EvidenceCompiler } from './evidence-compiler.js';
import {
  type FoundEvidenceMarker,
  type MalformedEvidenceMarker,
  neutralizeEvidenceMarkers,
  parseEvidenceMarkers,
} from './evidence-marker.js';
import { type MountableMessage, rewriteMessageTexts } from './message-text.js';

/**
 * Options of {@link mountEvidence} and the evidence middleware.
 *
 * @example
 * ```ts
 * const options: MountEvidenceOptions = { compiler, runId: '48', ownerId: 'o1', budgetBytes: 32_000 };
 * ```
 */
export interface MountEvidenceOptions {
  compiler: EvidenceCompiler;
  /** The supervisor's run: markers of other runs are refused. */
  runId: string;
  /** The supervisor's owner: workers of other owners are refused. */
  ownerId: string;
  /**
   * Runs whose workers' evidence mounts too: a re-run's source runs, whose outputs it reuses
   * (its `readRuns`); markers of any other run are refused.
   */
  readRuns?: readonly string[] | undefined;
  /** Total bytes of evidence mounted per call, shared by all markers (default 32 000). */
  budgetBytes?: number;
}

/**
 * How one marker was handled.
 *
 * @example
 * ```ts
 * const refused = result.markers.filter((marker: MountedMarker) => marker.outcome === 'refused');
 * ```
 */
export interface MountedMarker {
  jobId: string;
  workerId: string;
  outcome: 'mounted' | 'refused' | 'unavailable';
  /** Why a marker was refused or unavailable. */
  reason?: string;
}

/**
 * Result of {@link mountEvidence}.
 *
 * @example
 * ```ts
 * const result: MountResult<ModelMessage> = await mountEvidence(history, options);
 * ```
 */
export interface MountResult<TMessage> {
  /** The messages to send to the model: copies where evidence was mounted, originals elsewhere. */
  messages: TMessage[];
  markers: MountedMarker[];
  /** The first {@link MAX_REPORTED_MALFORMED} malformed markers, in message order. */
  malformed: MalformedEvidenceMarker[];
  /** How many malformed markers there were in all (reported or not). */
  malformedCount: number;
}

/**
 * Most malformed markers {@link mountEvidence} reports one by one; the rest are only
 * counted in {@link MountResult.malformedCount}, so text full of broken openings costs a
 * count, not a report as big as the text.
 *
 * @example
 * ```ts
 * const unreported = result.malformedCount - result.malformed.length; // 0 unless over the cap
 * ```
 */
export const MAX_REPORTED_MALFORMED = 100;

function keyOf(marker: FoundEvidenceMarker): string {
  return `${marker.runId}\u0000${marker.jobId}\u0000${marker.workerId}`;
}

/**
 * Expands `[EVIDENCE:…]` markers in tool, assistant and user messages into compiled worker
 * evidence, for any chat stack. Ownership is checked first: a marker of another run, another
 * owner's worker, or a job id that does not match its worker becomes a refusal line; a worker
 * whose artifacts are gone becomes "evidence no longer available". Nothing throws for a bad
 * marker or unreadable artifacts (the marker then reads as unavailable), and the given array
 * and messages are never mutated.
 *
 * Each job is expanded once, where its marker first appears; all expansions together stay
 * within `budgetBytes`. Malformed markers are reported up to {@link MAX_REPORTED_MALFORMED}
 * and counted beyond.
 *
 * @example
 * ```ts
 * const { messages } = await mountEvidence(history, { compiler, runId: '48', ownerId: 'o1' });
 * await callModel(messages); // send the mounted copy; keep persisting `history` itself
 * ```
 */
export async function mountEvidence<TMessage extends MountableMessage>(
  messages: readonly TMessage[],
  options: MountEvidenceOptions,
): Promise<MountResult<TMessage>> {
  const found = new Map<string, FoundEvidenceMarker>();
  const malformed: MalformedEvidenceMarker[] = [];
  let malformedCount = 0;
  for (const message of messages) {
    rewriteMessageTexts(message, (text) => {
      const parsed = parseEvidenceMarkers(text);
      for (const marker of parsed.markers) if (!found.has(keyOf(marker))) found.set(keyOf(marker), marker);
      // One by one, never `push(...)`: a spread of an input-sized array overflows the stack.
      for (const bad of parsed.malformed) {
        if (malformed.length < MAX_REPORTED_MALFORMED) malformed.push(bad);
      }
      malformedCount += parsed.malformed.length;
      return text;
    });
  }
  if (found.size === 0) return { messages: [...messages], markers: [], malformed, malformedCount };

  const outcomes = new Map<string, MountedMarker>();
  for (const [key, marker] of found) {
    const access = await checkEvidenceAccess(marker, { ...options, store: options.compiler.store });
    const base = { jobId: marker.jobId, workerId: marker.workerId };
    outcomes.set(
      key,
      access.outcome === 'allowed' ? { ...base, outcome: 'mounted' } : { ...base, ...access },
    );
  }
  const mountable = [...outcomes.values()].filter((outcome) => outcome.outcome === 'mounted');
  let evidence = new Map<string, string>();
  let failure: string | undefined;
  if (mountable.length > 0) {
    try {
      // By worker: a re-run's job ids repeat those of the runs it reads.
      evidence = await options.compiler.compile({
        runId: options.runId,
        ownerId: options.ownerId,
        ...(options.readRuns === undefined || options.readRuns.length === 0
          ? {}
          : { readRuns: options.readRuns }),
        workerIds: mountable.map((outcome) => outcome.workerId),
        keyBy: 'workerId',
        ...(options.budgetBytes === undefined ? {} : { budgetBytes: options.budgetBytes }),
      });
    } catch (error) {
      failure = `evidence could not be read: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  for (const outcome of mountable) {
    if (!evidence.has(outcome.workerId)) {
      outcome.outcome = 'unavailable';
      outcome.reason = failure ?? 'the worker was collected while evidence was compiled';
    }
  }
  const expanded = new Set<string>();
  const expand = (text: string): string => {
    const { markers } = parseEvidenceMarkers(text);
    if (markers.length === 0) return text;
    let output = '';
    let position = 0;
    for (const marker of markers) {
      const key = keyOf(marker);
      const outcome = outcomes.get(key);
      output += text.slice(position, marker.end);
      position = marker.end;
      if (!outcome) continue;
      if (outcome.outcome === 'refused') {
        output += `\n[evidence refused for job ${marker.jobId}: ${outcome.reason}]`;
      } else if (outcome.outcome === 'unavailable' || !evidence.has(marker.workerId)) {
        output += `\n[evidence no longer available for job ${marker.jobId}]`;
      } else if (expanded.has(key)) {
        output += ` (evidence for job ${marker.jobId} is mounted above)`;
      } else {
        expanded.add(key);
        output += `\n\n${neutralizeEvidenceMarkers(evidence.get(marker.workerId) ?? '')}\n`;
      }
    }
    return output + text.slice(position);
  };
  return {
    messages: messages.map((message) => rewriteMessageTexts(message, expand)),
    markers: [...outcomes.values()],
    malformed,
    malformedCount,
  };
}
