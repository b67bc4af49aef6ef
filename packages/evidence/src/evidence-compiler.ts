import { clampUtf8, completePrefixLength, decodeUtf8, utf8CutAfter, utf8Length } from '@wharf/common';
import type { ArtifactStore, ByteRange, ToolCallRecord, WorkerMetadata } from './artifact-store.js';
import { EvidenceError } from './evidence-error.js';
import {
  entryEnd,
  entryHeader,
  entryHeaderReserve,
  fullEntryCost,
  isFailedCall,
  NO_TOOL_CALLS,
  OUTPUT_GONE,
  omittedLine,
  truncationMarker,
  truncationMarkerReserve,
  WORKER_FOOTER,
  workerHeader,
  workerHeaderReserve,
} from './evidence-layout.js';
import { neutralizeEvidenceMarkers } from './evidence-marker.js';
import { ROLLUP_RESERVE_BYTES, rollupLine } from './evidence-rollup.js';
import { mapConcurrent } from './map-concurrent.js';
import { waterFill } from './water-fill.js';

/**
 * Default total evidence budget per compile, in UTF-8 bytes.
 *
 * @example
 * ```ts
 * await compiler.compile({ runId, ownerId, budgetBytes: DEFAULT_EVIDENCE_BUDGET_BYTES / 2 });
 * ```
 */
export const DEFAULT_EVIDENCE_BUDGET_BYTES = 32_000;

/**
 * Options of {@link EvidenceCompiler.compile}.
 *
 * @example
 * ```ts
 * const options: CompileOptions = { runId: '48', ownerId: 'o1', budgetBytes: 16_000, jobIds: ['123'] };
 * ```
 */
export interface CompileOptions {
  runId: string;
  ownerId: string;
  /** Total UTF-8 bytes for all workers together (default 32 000). Never exceeded. */
  budgetBytes?: number;
  /** Only these jobs of the run (default: every worker of the run). */
  jobIds?: readonly string[];
  /**
   * The workers of these runs too (a re-run's source runs, whose outputs it reuses), after the
   * run's own. Job ids may then repeat across runs: select with `workerIds`, key by worker.
   */
  readRuns?: readonly string[];
  /** Only these workers (default: every worker of the runs, as `jobIds` leaves them). */
  workerIds?: readonly string[];
  /** What the evidence map is keyed by (default `jobId`; `workerId` is unique across runs). */
  keyBy?: 'jobId' | 'workerId';
}

/**
 * What one compile produced and what it cost.
 *
 * @example
 * ```ts
 * const report: CompileReport = await compiler.compileWithReport({ runId: '48', ownerId: 'o1' });
 * console.log(report.bytesRead, report.bytesEmitted);
 * ```
 */
export interface CompileReport {
  /** Evidence text per job id, in job order. */
  evidence: Map<string, string>;
  /** Output bytes read from the artifact store. */
  bytesRead: number;
  /** UTF-8 bytes of all evidence texts together (≤ the budget). */
  bytesEmitted: number;
  /** Tool outputs shown (whole or cut) and left out. */
  outputsShown: number;
  outputsOmitted: number;
  /**
   * When not every worker fit the budget: the roll-up line standing for those left out (their
   * evidence text is empty), also appended to the last worker shown (or, when none fit, the
   * text of the first one left out).
   */
  rollup?: string;
}

interface WorkerPlan {
  worker: WorkerMetadata;
  calls: ToolCallRecord[];
  fixed: number;
  demand: number;
  failed: boolean;
}

const MIN_CONTENT_BYTES = 128;
/** Below this much content an output shows its tail only. */
const TAIL_ONLY_BELOW = 512;

/** Fewest bytes of an entry still worth showing: whole, or header, marker and 128 bytes of content. */
function minimumEntryCost(call: ToolCallRecord): number {
  return Math.min(
    fullEntryCost(call),
    entryHeaderReserve(call, true) + truncationMarkerReserve(call) + MIN_CONTENT_BYTES + 2,
  );
}

/** Fewest bytes of a worker's block that show something: its frame and its most important output. */
function minimumShare(plan: WorkerPlan): number {
  const first = plan.calls[0];
  return Math.min(plan.demand, plan.fixed + (first === undefined ? 0 : minimumEntryCost(first)));
}

/**
 * Shares when the budget cannot give every worker its {@link minimumShare}: workers are taken
 * failing ones first, then in job order, while their minimums fit beside the roll-up reserve;
 * each taken worker gets its minimum and the rest is shared by weight. Others get nothing.
 */
function overflowShares(plans: readonly WorkerPlan[], budget: number): number[] {
  let room = budget - Math.min(budget, ROLLUP_RESERVE_BYTES);
  const order = plans.map((_, index) => index);
  order.sort((left, right) => Number(plans[right]?.failed) - Number(plans[left]?.failed) || left - right);
  const base = plans.map(() => 0);
  for (const index of order) {
    const minimum = minimumShare(plans[index] as WorkerPlan);
    if (minimum > room) break;
    base[index] = minimum;
    room -= minimum;
  }
  const extra = waterFill(
    plans.map((plan, index) => ({
      demand: (base[index] ?? 0) > 0 ? plan.demand - (base[index] ?? 0) : 0,
      weight: plan.failed ? 2 : 1,
    })),
    room,
  );
  return base.map((minimum, index) => (minimum > 0 ? minimum + (extra[index] ?? 0) : 0));
}

function byPriority(left: ToolCallRecord, right: ToolCallRecord): number {
  return (
    Number(isFailedCall(right)) - Number(isFailedCall(left)) ||
    right.seq - left.seq ||
    right.bytes - left.bytes
  );
}

/**
 * Turns a run's artifacts into evidence text under a byte budget, deterministically.
 *
 * Each worker gets a share of the budget (workers with failures weigh double; what a small
 * worker does not need goes to the others). Within a worker, outputs are taken failures
 * first, then most recent, then largest; an output over its share shows its head (up to
 * 1 KB) and the rest of its share as tail, with a marker stating the cut byte offsets. Only
 * the byte ranges shown are read, so the cost follows the budget, not the artifact sizes.
 * When the budget cannot give every worker its frame and first output, failing workers are
 * taken first (then job order) while they fit, the rest get empty text, and one roll-up line
 * (see `rollupLine`) stands for them at the end of the last worker shown.
 * Evidence markers inside the outputs are defused (`[EVIDENCE` becomes `(EVIDENCE`, see
 * {@link neutralizeEvidenceMarkers}), so evidence never mounts more evidence.
 *
 * @example
 * ```ts
 * const compiler = new EvidenceCompiler({ store });
 * const evidence = await compiler.compile({ runId: '48', ownerId: 'o1', budgetBytes: 32_000 });
 * for (const [jobId, text] of evidence) console.log(jobId, text);
 * ```
 */
export class EvidenceCompiler {
  readonly store: ArtifactStore;
  readonly headBytes: number;

  constructor(options: { store: ArtifactStore; headBytes?: number }) {
    this.store = options.store;
    this.headBytes = options.headBytes ?? 1024;
  }

  /** Evidence per job id for the run's workers (see {@link EvidenceCompiler}). */
  async compile(options: CompileOptions): Promise<Map<string, string>> {
    return (await this.compileWithReport(options)).evidence;
  }

  /** Like {@link EvidenceCompiler.compile}, with the bytes read and emitted. */
  async compileWithReport(options: CompileOptions): Promise<CompileReport> {
    const budget = options.budgetBytes ?? DEFAULT_EVIDENCE_BUDGET_BYTES;
    if (!Number.isSafeInteger(budget) || budget < 0) {
      throw new EvidenceError('INVALID_OPTIONS', `budgetBytes must be a non-negative integer; got ${budget}`);
    }
    let workers = await this.store.listWorkers({ ownerId: options.ownerId, runId: options.runId });
    for (const runId of options.readRuns ?? [])
      if (runId !== options.runId)
        workers = [...workers, ...(await this.store.listWorkers({ ownerId: options.ownerId, runId }))];
    if (options.workerIds) {
      const wanted = new Set(options.workerIds);
      workers = workers.filter((worker) => wanted.has(worker.workerId));
    }
    const keyOf = (worker: WorkerMetadata) => (options.keyBy === 'workerId' ? worker.workerId : worker.jobId);
    if (options.jobIds) {
      const wanted = new Set(options.jobIds);
      workers = workers.filter((worker) => wanted.has(worker.jobId));
    }
    const plans = await mapConcurrent(workers, 8, async (worker): Promise<WorkerPlan> => {
      const calls = (await this.store.listToolCalls(worker.workerId)).sort(byPriority);
      const fixed =
        workerHeaderReserve(worker, calls.length) +
        utf8Length(WORKER_FOOTER) +
        Math.max(utf8Length(omittedLine(calls.length)), utf8Length(NO_TOOL_CALLS));
      const demand = fixed + calls.reduce((sum, call) => sum + fullEntryCost(call), 0);
      const failed = worker.status === 'failed' || calls.some(isFailedCall);
      return { worker, calls, fixed, demand, failed };
    });
    const weighted = waterFill(
      plans.map((plan) => ({ demand: plan.demand, weight: plan.failed ? 2 : 1 })),
      budget,
    );
    // A budget too small for every worker's frame and first output shows the most important
    // workers whole enough to be useful and rolls up the rest in one line.
    const overflow = plans.some((plan, index) => (weighted[index] ?? 0) < minimumShare(plan));
    const shares = overflow ? overflowShares(plans, budget) : weighted;
    const report: CompileReport = {
      evidence: new Map(),
      bytesRead: 0,
      bytesEmitted: 0,
      outputsShown: 0,
      outputsOmitted: 0,
    };
    let lastShown: string | undefined;
    for (const [index, plan] of plans.entries()) {
      const share = shares[index] ?? 0;
      if (overflow && share === 0) {
        report.evidence.set(keyOf(plan.worker), '');
        report.outputsOmitted += plan.calls.length;
        continue;
      }
      const text = await this.#renderWorker(plan, { share, total: budget }, report);
      report.evidence.set(keyOf(plan.worker), text);
      report.bytesEmitted += utf8Length(text);
      lastShown = keyOf(plan.worker);
    }
    if (overflow) {
      const omitted = plans.filter((_, index) => (shares[index] ?? 0) === 0);
      const first = omitted[0]?.worker;
      const host = lastShown ?? (first === undefined ? undefined : keyOf(first));
      const hostText = host === undefined ? '' : (report.evidence.get(host) ?? '');
      const separator = hostText === '' ? '' : '\n';
      const limit = budget - report.bytesEmitted - utf8Length(separator);
      if (host !== undefined && omitted.length > 0 && limit > 0) {
        const line = rollupLine({
          omitted,
          totalWorkers: plans.length,
          budgetBytes: budget,
          limitBytes: limit,
        });
        report.rollup = line;
        report.evidence.set(host, hostText + separator + line);
        report.bytesEmitted += utf8Length(separator + line);
      }
    }
    return report;
  }

  async #renderWorker(
    plan: WorkerPlan,
    budget: { share: number; total: number },
    report: CompileReport,
  ): Promise<string> {
    const { worker, calls } = plan;
    const share = budget.share;
    const available = share - plan.fixed;
    if (available < 0) {
      report.outputsOmitted += calls.length;
      return clampUtf8(`[evidence for job ${worker.jobId} omitted: budget too small]`, share);
    }
    const allocations = this.#allocateEntries(calls, available);
    const parts = await Promise.all(
      allocations.map((allocation, index) => {
        const call = calls[index];
        return call ? this.#renderEntry(call, allocation, report) : '';
      }),
    );
    const omitted = calls.length - allocations.length;
    report.outputsShown += allocations.length;
    report.outputsOmitted += omitted;
    const body =
      (calls.length === 0 ? NO_TOOL_CALLS : '') + parts.join('') + (omitted > 0 ? omittedLine(omitted) : '');
    const outputs = { shown: allocations.length, total: calls.length };
    // Raw output is the worker's word, never a pointer to more evidence: defuse its markers.
    const text = neutralizeEvidenceMarkers(workerHeader(worker, budget, outputs) + body + WORKER_FOOTER);
    return utf8Length(text) <= share ? text : clampUtf8(text, share);
  }

  /** Bytes for the first k outputs in priority order, k as large as keeps each useful. */
  #allocateEntries(calls: readonly ToolCallRecord[], available: number): number[] {
    const minimums = calls.map(minimumEntryCost);
    const smallest = minimums.reduce((low, value) => Math.min(low, value), Number.POSITIVE_INFINITY);
    let count = Math.min(calls.length, Math.floor(available / Math.max(1, smallest)));
    while (count > 0) {
      const chosen = calls.slice(0, count);
      const allocation = waterFill(
        chosen.map((call) => ({ demand: fullEntryCost(call), weight: isFailedCall(call) ? 2 : 1 })),
        available,
      );
      if (chosen.every((_, index) => (allocation[index] ?? 0) >= (minimums[index] ?? 0))) return allocation;
      count--;
    }
    return [];
  }

  async #renderEntry(call: ToolCallRecord, allocation: number, report: CompileReport): Promise<string> {
    const workerId = call.artifactId.slice(0, call.artifactId.indexOf('/'));
    if (allocation >= fullEntryCost(call)) {
      const content = await this.#read(workerId, call, { start: 0, end: call.bytes }, report);
      const text = content === undefined ? OUTPUT_GONE : decodeUtf8(content);
      return `${entryHeader(call)}${text}${entryEnd(text)}`;
    }
    const contentBytes = allocation - entryHeaderReserve(call, true) - truncationMarkerReserve(call) - 2;
    const headLength =
      contentBytes >= 2 * this.headBytes
        ? this.headBytes
        : contentBytes >= TAIL_ONLY_BELOW
          ? Math.floor(contentBytes / 4)
          : 0;
    const tailLength = contentBytes - headLength;
    const head =
      headLength > 0
        ? await this.#read(workerId, call, { start: 0, end: headLength }, report)
        : new Uint8Array();
    const tail = await this.#read(
      workerId,
      call,
      { start: call.bytes - tailLength, end: call.bytes },
      report,
    );
    if (head === undefined || tail === undefined) return `${entryHeader(call)}${OUTPUT_GONE}\n\n`;
    const headShown = head.subarray(0, completePrefixLength(head));
    const tailShown = tail.subarray(utf8CutAfter(tail, 0));
    const cutFrom = headShown.length;
    const cutTo = call.bytes - tailShown.length;
    const tailText = decodeUtf8(tailShown);
    return (
      entryHeader(call, { head: headShown.length, tail: tailShown.length }) +
      decodeUtf8(headShown) +
      truncationMarker(cutFrom, cutTo) +
      tailText +
      entryEnd(tailText)
    );
  }

  async #read(
    workerId: string,
    call: ToolCallRecord,
    range: ByteRange,
    report: CompileReport,
  ): Promise<Uint8Array | undefined> {
    try {
      const bytes = await this.store.readToolOutput(workerId, call.seq, range);
      report.bytesRead += bytes.length;
      return bytes;
    } catch (error) {
      if (EvidenceError.isInstance(error) && error.code === 'ARTIFACT_NOT_FOUND') return undefined;
      throw error;
    }
  }
}
