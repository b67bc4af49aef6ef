import { completePrefixLength, decodeUtf8, utf8CutAfter } from '@wharf/common';
import { type Tool, tool } from 'ai';
import { checkEvidenceAccess } from './evidence-access.js';
import type { EvidenceCompiler } from './evidence-compiler.js';
import { neutralizeEvidenceMarkers } from './evidence-marker.js';
import { parseArtifactId } from './ids.js';
import {
  type GetToolOutputInput,
  type GetWorkerEvidenceInput,
  getToolOutputInputSchema,
  getWorkerEvidenceInputSchema,
} from './schemas.js';

/**
 * Options of {@link createEvidenceTools}.
 *
 * @example
 * ```ts
 * const options: EvidenceToolsOptions = { compiler, runId: '48', ownerId: 'o1', maxBudgetBytes: 32_000 };
 * ```
 */
export interface EvidenceToolsOptions {
  compiler: EvidenceCompiler;
  /** The caller's run and owner: every lookup is confined to them. */
  runId: string;
  ownerId: string;
  /** Runs whose workers may be read too: a re-run's source runs (see `mountEvidence`). */
  readRuns?: readonly string[] | undefined;
  /**
   * The job id of a task's worker (`instance`: a loop's, from 0), for `get_worker_evidence` by
   * task and instance. Default: `task`, or `task.instance`.
   */
  jobIdOf?: (task: string, instance: number | undefined) => string;
  /** Budget of `get_worker_evidence` when the model gives none (default 16 000). */
  defaultBudgetBytes?: number;
  /** Largest budget the model may ask for (default 64 000). */
  maxBudgetBytes?: number;
  /** Most bytes one `get_tool_output` call returns (default 16 000). */
  maxOutputBytes?: number;
}

/**
 * The two pull tools, keyed by the names the model sees.
 *
 * @example
 * ```ts
 * const tools: EvidenceTools = createEvidenceTools({ compiler, runId: '48', ownerId: 'o1' });
 * ```
 */
export type EvidenceTools = {
  get_worker_evidence: Tool<GetWorkerEvidenceInput, string>;
  get_tool_output: Tool<GetToolOutputInput, string>;
};

/**
 * The pull alternative to mounting: two AI SDK tools the supervisor model calls when it
 * wants evidence, so nothing inflates the context unless asked for.
 *
 * - `get_worker_evidence({ job_id, budget_bytes? })`: one worker's compiled evidence; or by
 *   `{ task, instance? }`: any task's or loop instance's (one found through a loop's manifest,
 *   not only those whose results it was shown), of its run or of the runs it reads.
 * - `get_tool_output({ artifact_id, offset?, length? })`: a byte range of one raw output.
 *
 * Both are confined to the caller's owner and run, refuse other owners' and runs' workers,
 * and answer "evidence no longer available" for collected artifacts instead of throwing.
 * Markers inside the raw output they return are defused (`[EVIDENCE` becomes `(EVIDENCE`),
 * so a worker's output can never make the mounting middleware expand a sibling's evidence.
 *
 * @example
 * ```ts
 * const { text } = await generateText({
 *   model,
 *   tools: { ...createEvidenceTools({ compiler, runId: '48', ownerId: 'o1' }) },
 *   messages: history,
 * });
 * ```
 */
export function createEvidenceTools(options: EvidenceToolsOptions): EvidenceTools {
  const maxBudget = options.maxBudgetBytes ?? 64_000;
  const defaultBudget = Math.min(options.defaultBudgetBytes ?? 16_000, maxBudget);
  const maxOutput = options.maxOutputBytes ?? 16_000;
  const scope = {
    runId: options.runId,
    ownerId: options.ownerId,
    store: options.compiler.store,
    readRuns: options.readRuns,
  };

  const jobIdOf =
    options.jobIdOf ??
    ((task: string, instance: number | undefined) => (instance === undefined ? task : `${task}.${instance}`));

  const getWorkerEvidence = tool({
    description:
      'Fetch the recorded tool outputs of a worker of this run (failures first, cut to a byte budget). ' +
      'Use the job_id (and worker_id) from the [EVIDENCE:...] marker of its result, or name the task ' +
      "(and, for a loop, the instance from 0, as in the loop's manifest) to read any instance's evidence.",
    inputSchema: getWorkerEvidenceInputSchema,
    execute: async (input) => {
      const named =
        input.task === undefined
          ? undefined
          : `task ${input.task}${input.instance === undefined ? '' : ` instance ${input.instance}`}`;
      const jobId =
        input.job_id ?? (input.task === undefined ? undefined : jobIdOf(input.task, input.instance));
      if (jobId === undefined) return '[give job_id, or task (and instance for a loop)]';
      const what = named ?? `job ${jobId}`;
      let workerId = input.worker_id;
      if (workerId === undefined) {
        // This run first, then the runs it reads (a re-run's reused instances ran there).
        const runs = input.run_id === undefined ? [scope.runId, ...(scope.readRuns ?? [])] : [input.run_id];
        for (const runId of runs) {
          const workers = await scope.store.listWorkers({ ownerId: scope.ownerId, runId });
          workerId = workers.find((worker) => worker.jobId === jobId)?.workerId;
          if (workerId !== undefined) break;
        }
        if (workerId === undefined)
          return named === undefined
            ? `[evidence no longer available for job ${jobId}]`
            : `[no evidence recorded for ${named} (job ${jobId}): a loop's instances count from 0, and a task that runs no agent records none]`;
      }
      const access = await checkEvidenceAccess({ runId: input.run_id, jobId, workerId }, scope);
      if (access.outcome === 'refused') return `[evidence refused for ${what}: ${access.reason}]`;
      if (access.outcome !== 'allowed') return `[evidence no longer available for ${what}]`;
      const budgetBytes = Math.min(input.budget_bytes ?? defaultBudget, maxBudget);
      const evidence = await options.compiler.compile({
        runId: access.worker.runId,
        ownerId: scope.ownerId,
        budgetBytes,
        workerIds: [workerId],
        keyBy: 'workerId',
      });
      return evidence.get(workerId) ?? `[evidence no longer available for ${what}]`;
    },
  });

  const getToolOutput = tool({
    description:
      'Read a byte range of one raw tool output of a worker of this run, by the artifact id shown in its ' +
      `evidence (e.g. w1/tool_calls/002_ssh_exec.txt). Returns at most ${maxOutput} bytes per call.`,
    inputSchema: getToolOutputInputSchema,
    execute: async (input) => {
      const parsed = parseArtifactId(input.artifact_id);
      if (!parsed)
        return `[invalid artifact id ${JSON.stringify(input.artifact_id)}: expected <worker>/tool_calls/NNN_<tool>.txt]`;
      const worker = await scope.store.getWorker(parsed.workerId).catch(() => undefined);
      const gone = `[evidence no longer available for ${input.artifact_id}]`;
      if (!worker) return gone;
      const access = await checkEvidenceAccess({ jobId: worker.jobId, workerId: worker.workerId }, scope);
      if (access.outcome === 'refused')
        return `[evidence refused for ${input.artifact_id}: ${access.reason}]`;
      if (access.outcome === 'unavailable') return gone;
      const record = (await scope.store.listToolCalls(parsed.workerId)).find(
        (call) => call.seq === parsed.seq,
      );
      if (!record || record.artifactId !== input.artifact_id.trim()) return gone;
      const offset = Math.min(input.offset ?? 0, record.bytes);
      const length = Math.min(input.length ?? maxOutput, maxOutput);
      let bytes: Uint8Array;
      try {
        bytes = await scope.store.readToolOutput(parsed.workerId, parsed.seq, {
          start: offset,
          end: offset + length,
        });
      } catch {
        return gone;
      }
      const skip = offset > 0 ? utf8CutAfter(bytes, 0) : 0;
      const end = offset + bytes.length < record.bytes ? completePrefixLength(bytes) : bytes.length;
      const shown = bytes.subarray(skip, Math.max(skip, end));
      const from = offset + skip;
      const to = from + shown.length;
      const more = to < record.bytes ? `; call again with offset=${to} for more` : '';
      const exit = record.exitCode === null ? '' : `, exit=${record.exitCode}`;
      // Raw worker output: its markers are defused so mounting never expands them.
      const text = neutralizeEvidenceMarkers(decodeUtf8(shown));
      return `${record.artifactId} bytes ${from}-${to} of ${record.bytes}${exit}${more}:\n${text}`;
    },
  });

  return { get_worker_evidence: getWorkerEvidence, get_tool_output: getToolOutput };
}
